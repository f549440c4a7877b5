import { ApiProperty, PartialType } from '@nestjs/swagger';
import { INT4_MAX } from '../../common/canonical-integer';
import { ListEnvelopeOf } from '../../common/paging/list-envelope.dto';
import { ClosedSchema } from '../../openapi/schema-rules';
import { SLUG_MAX_LENGTH, SLUG_PATTERN } from '../../common/text/slug';
import { BLOG_RESPONSE_FIELDS, BlogResponseField } from '../blog-list';
import { BLOG_STATUSES, BlogStatus, blogStatus } from '../blog-status';
import type { Blog } from '../blog.entity';
import { BLOG_LIMITS, MAX_TAGS } from './blog-input.dto';

const TIMESTAMP = 'ISO 8601 UTC with milliseconds and `Z`, from the database clock.';

/** A blog as clients see it (a class so that `@nestjs/swagger` can describe it). */
@ClosedSchema()
export class BlogResponse {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: INT4_MAX, description: 'Assigned by the service.', example: 1 })
  readonly id!: number;

  @ApiProperty({ minLength: BLOG_LIMITS.title.min, maxLength: BLOG_LIMITS.title.max, example: 'Hello' })
  readonly title!: string;

  @ApiProperty({ minLength: BLOG_LIMITS.content.min, maxLength: BLOG_LIMITS.content.max, example: 'First post' })
  readonly content!: string;

  @ApiProperty({ minLength: BLOG_LIMITS.author.min, maxLength: BLOG_LIMITS.author.max, example: 'Alice' })
  readonly author!: string;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: `Creation time; ${TIMESTAMP}`,
    example: '2026-01-31T12:00:00.000Z',
  })
  readonly createdAt!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: `Last update time (equals \`createdAt\` until the first update); ${TIMESTAMP}`,
    example: '2026-01-31T12:00:00.000Z',
  })
  readonly updatedAt!: Date;

  @ApiProperty({
    enum: BLOG_STATUSES,
    description:
      'Derived when answering from `publishedAt` and the clock: `draft` without it, `scheduled` before it, ' +
      '`published` from it on.',
    example: 'published',
  })
  readonly status!: BlogStatus;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: `When the blog is (or was) published, null for a draft; ${TIMESTAMP}`,
    example: '2026-01-31T12:00:00.000Z',
  })
  readonly publishedAt!: Date | null;

  @ApiProperty({
    minLength: 1,
    maxLength: SLUG_MAX_LENGTH,
    pattern: SLUG_PATTERN.source,
    description: "The blog's URL name, unique among all blogs: `GET /api/v1/blogs/slug/{slug}` reads it.",
    example: 'hello',
  })
  readonly slug!: string;

  @ApiProperty({
    type: [String],
    maxItems: MAX_TAGS,
    description: "The names of the blog's tags in the order they were given; `[]` when none.",
    example: ['NestJS', 'Databases'],
  })
  readonly tags!: string[];
}

/** A blog in a list: all its fields, or exactly those the query's `fields` names. */
@ClosedSchema()
class BlogListItem extends PartialType(BlogResponse) {}

/** The list envelope: one page of blogs, the exact total, the effective paging and the next page's cursor. */
@ClosedSchema()
export class BlogListResponse extends ListEnvelopeOf(BlogListItem, {
  plural: 'blogs',
  data:
    'The page, in the order of `sort` (newest first by default). Each blog has all its fields, or exactly those ' +
    'named by `fields`.',
}) {}

/** The blog's public shape at `now` with exactly `fields` (all by default), in {@link BLOG_RESPONSE_FIELDS} order. */
export function toBlogListItem(
  blog: Blog,
  now: Date,
  fields: readonly BlogResponseField[] = BLOG_RESPONSE_FIELDS,
): BlogListItem {
  const full = toBlogResponse(blog, now);
  return fields.length === BLOG_RESPONSE_FIELDS.length
    ? full
    : Object.fromEntries(fields.map((field) => [field, full[field]]));
}

/** Maps an entity to its public shape at `now` (which decides its status), leaving out the owner. */
export function toBlogResponse(blog: Blog, now: Date): BlogResponse {
  return {
    id: blog.id,
    title: blog.title,
    content: blog.content,
    author: blog.author,
    createdAt: blog.createdAt,
    updatedAt: blog.updatedAt,
    status: blogStatus(blog, now),
    publishedAt: blog.publishedAt,
    slug: blog.slug,
    tags: blog.tags,
  };
}

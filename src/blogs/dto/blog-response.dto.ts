import { ApiProperty } from '@nestjs/swagger';
import { INT4_MAX } from '../../common/canonical-integer';
import type { Blog } from '../blog.entity';
import { BLOG_LIMITS } from './blog-input.dto';
import { PAGING } from './list-blogs-query.dto';

const TIMESTAMP = 'ISO 8601 UTC with milliseconds and `Z`, from the database clock.';

/** A blog as clients see it (a class so that `@nestjs/swagger` can describe it). */
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
}

/** The list envelope: one page of blogs, the exact total and the effective paging. */
export class BlogListResponse {
  @ApiProperty({
    type: [BlogResponse],
    maxItems: PAGING.maxLimit,
    description: 'The page, newest first (`createdAt`, then `id`, descending).',
  })
  readonly data!: readonly BlogResponse[];

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of blogs in total.', example: 1 })
  readonly total!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: PAGING.maxLimit,
    description: 'The effective limit.',
    example: 10,
  })
  readonly limit!: number;

  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: PAGING.maxOffset,
    description: 'The effective offset.',
    example: 0,
  })
  readonly offset!: number;
}

/** Maps an entity to its public shape, leaving out what clients must not see (the owner). */
export function toBlogResponse(blog: Blog): BlogResponse {
  return {
    id: blog.id,
    title: blog.title,
    content: blog.content,
    author: blog.author,
    createdAt: blog.createdAt,
    updatedAt: blog.updatedAt,
  };
}

import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { BlogResponse, toBlogResponse } from '../../blogs/dto/blog-response.dto';
import { Blog } from '../../blogs/blog.entity';
import { INT4_MAX } from '../../common/canonical-integer';
import { ClosedSchema } from '../../openapi/schema-rules';
import { EVENT_ID_PATTERN } from '../event-id';
import { EVENT_TYPES, EventType } from '../event-type';
import type { ChangeEvent } from '../event.entity';

/** A deleted blog in its `blog.deleted` event. */
@ClosedSchema()
export class DeletedBlogResponse {
  @ApiProperty({ type: 'integer', minimum: 1, maximum: INT4_MAX, example: 1 })
  readonly id!: number;

  @ApiProperty({ description: 'Its slug when it was deleted.', example: 'hello' })
  readonly slug!: string;
}

/** One change, as the feed and webhooks send it. */
@ClosedSchema()
@ApiExtraModels(BlogResponse, DeletedBlogResponse)
export class EventResponse {
  @ApiProperty({
    pattern: EVENT_ID_PATTERN.source,
    description: 'Decimal digits; ids increase as numbers in feed order.',
    example: '42',
  })
  readonly id!: string;

  @ApiProperty({ enum: EVENT_TYPES, example: 'blog.created' })
  readonly type!: EventType;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When the change committed its transaction (database clock), ISO 8601 UTC with milliseconds.',
    example: '2026-01-31T12:00:00.000Z',
  })
  readonly occurredAt!: Date;

  @ApiProperty({
    oneOf: [{ $ref: getSchemaPath(BlogResponse) }, { $ref: getSchemaPath(DeletedBlogResponse) }],
    description:
      'The blog as its owner read it right after the change (its `status` at `occurredAt`); only `id` and `slug` ' +
      'for `blog.deleted`.',
  })
  readonly blog!: BlogResponse | DeletedBlogResponse;
}

/** The stored `snapshot` of a `blogs` row (its columns by name) as an entity with the tags' names from `names`. */
function blogOfSnapshot(snapshot: Record<string, unknown>, names: ReadonlyMap<string, string>): Blog {
  const published = snapshot.published_at as string | null;
  const tagSlugs = snapshot.tag_slugs as string[];
  return Object.assign(new Blog(), {
    id: snapshot.id as number,
    title: snapshot.title as string,
    content: snapshot.content as string,
    author: snapshot.author as string,
    createdAt: new Date(snapshot.created_at as string),
    updatedAt: new Date(snapshot.updated_at as string),
    version: snapshot.version as number,
    publishedAt: published === null ? null : new Date(published),
    slug: snapshot.slug as string,
    tagSlugs,
    tags: tagSlugs.map((slug) => names.get(slug) ?? slug),
  });
}

/** The tag slugs that `events`' blogs name, to look their names up once. */
export function tagSlugsOf(events: readonly ChangeEvent[]): Set<string> {
  const slugs = new Set<string>();
  for (const { blog } of events) for (const slug of (blog.tag_slugs as string[] | undefined) ?? []) slugs.add(slug);
  return slugs;
}

/** The public shape of `event`, its blog's tags named by `names` (slug → name). */
export function toEventResponse(event: ChangeEvent, names: ReadonlyMap<string, string>): EventResponse {
  const { id, type, occurredAt, blog } = event;
  return {
    id,
    type,
    occurredAt,
    blog:
      type === 'blog.deleted'
        ? { id: blog.id as number, slug: blog.slug as string }
        : toBlogResponse(blogOfSnapshot(blog, names), occurredAt),
  };
}

import { Injectable } from '@nestjs/common';
import { rowMapper } from '../database/entity-rows';
import { EventPresenter, EventResource, StoredEvent } from '../events/event-resource';
import { TagsRepository } from '../tags/tags.repository';
import { BlogPublicationsRepository } from './blog-publications.repository';
import { Blog } from './blog.entity';
import { blogEventKeys } from './blog-surrogate-keys';
import { BlogResponse, toBlogResponse } from './dto/blog-response.dto';
import { DeletedBlogResponse } from './dto/deleted-blog-response.dto';

/** What a change did to a blog; `blog.published` follows the change that made it live, or its instant passing. */
export const BLOG_EVENT_TYPES = ['blog.created', 'blog.updated', 'blog.deleted', 'blog.published'] as const;

const blogOf = rowMapper(Blog);

/** The stored `snapshot` of a `blogs` row (its columns by name) as an entity with the tags' names from `names`. */
function blogOfSnapshot(snapshot: Record<string, unknown>, names: ReadonlyMap<string, string>): Blog {
  const blog = blogOf(snapshot);
  blog.tags = blog.tagSlugs.map((slug) => names.get(slug) ?? slug);
  return blog;
}

/** The tag slugs that `events`' blogs name, to look their names up once. */
function tagSlugsOf(events: readonly StoredEvent[]): Set<string> {
  const slugs = new Set<string>();
  for (const { data } of events) for (const slug of (data.tag_slugs as string[] | undefined) ?? []) slugs.add(slug);
  return slugs;
}

/**
 * The blogs' events (docs/architecture.md, "Events"): a trigger on `blogs` writes the row by column name (`{id, slug}`
 * for a deletion) in the writer's transaction; here each becomes the blog as its owner read it at the event's instant,
 * and scheduled blogs whose instant passed get their `blog.published` before each relay.
 */
@EventResource({
  resource: 'blog',
  types: BLOG_EVENT_TYPES,
  schemas: [BlogResponse, DeletedBlogResponse],
  description:
    'The blog as its owner read it right after the change (its `status` at `occurredAt`); only `id` and `slug` ' +
    'for `blog.deleted`.',
})
@Injectable()
export class BlogEvents implements EventPresenter {
  constructor(
    private readonly tags: TagsRepository,
    private readonly publications: BlogPublicationsRepository,
  ) {}

  /** `events`' blogs, their tags named (one look-up for the page); a deletion as `{id, slug}`. */
  async present(events: readonly StoredEvent[]): Promise<(BlogResponse | DeletedBlogResponse)[]> {
    const names = await this.tags.names(tagSlugsOf(events));
    return events.map(({ type, occurredAt, data }) =>
      type === 'blog.deleted'
        ? { id: data.id as number, slug: data.slug as string }
        : toBlogResponse(blogOfSnapshot(data, names), occurredAt),
    );
  }

  /** Every event of a blog takes back its answers and the lists. */
  surrogateKeys({ data }: StoredEvent): string[] {
    return blogEventKeys(data.id as number);
  }

  /** Makes `blog.published` for the scheduled blogs whose instant has passed. */
  async beforeRelay(): Promise<void> {
    await this.publications.publishDue();
  }
}

import { Injectable } from '@nestjs/common';
import { EventPresenter, EventResource, StoredEvent } from '../events/event-resource';
import { TagsRepository } from '../tags/tags.repository';
import { BlogPublicationsRepository } from './blog-publications.repository';
import { Blog } from './blog.entity';
import { blogEventKeys } from './blog-surrogate-keys';
import { BlogResponse, toBlogResponse } from './dto/blog-response.dto';
import { DeletedBlogResponse } from './dto/deleted-blog-response.dto';

/** What a change did to a blog; `blog.published` follows the change that made it live, or its instant passing. */
export const BLOG_EVENT_TYPES = ['blog.created', 'blog.updated', 'blog.deleted', 'blog.published'] as const;

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

import type { Blog } from '../blog.entity';

/**
 * A blog as clients see it: every response that carries a blog carries all six fields.
 * Timestamps are ISO 8601 UTC with milliseconds and `Z` (what `Date#toJSON` writes).
 */
export interface BlogResponse {
  readonly id: number;
  readonly title: string;
  readonly content: string;
  readonly author: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The list envelope (spec §2): one page of blogs, the exact total and the effective paging. */
export interface BlogListResponse {
  readonly data: readonly BlogResponse[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
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

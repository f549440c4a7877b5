import { isSlug } from '../common/text/slug';
import { TAG_LIMITS } from '../tags/tag-limits';

/** The orders of the list: a field, descending with `-`; ties are broken by `id` in the same direction. */
export const BLOG_SORTS = [
  'createdAt',
  '-createdAt',
  'updatedAt',
  '-updatedAt',
  'title',
  '-title',
  'publishedAt',
  '-publishedAt',
  'id',
  '-id',
] as const;
export type BlogSort = (typeof BLOG_SORTS)[number];

/** Newest first. */
export const DEFAULT_BLOG_SORT: BlogSort = '-createdAt';

/** The field a sort orders by. */
export type BlogSortField = 'createdAt' | 'updatedAt' | 'title' | 'publishedAt' | 'id';

/** The field of `sort` and its direction. */
export function sortOrder(sort: BlogSort): { readonly field: BlogSortField; readonly descending: boolean } {
  const descending = sort.startsWith('-');
  return { field: (descending ? sort.slice(1) : sort) as BlogSortField, descending };
}

/** The fields of a blog a response may carry, in the order they are sent. */
export const BLOG_RESPONSE_FIELDS = [
  'id',
  'title',
  'content',
  'author',
  'createdAt',
  'updatedAt',
  'status',
  'publishedAt',
  'slug',
  'tags',
] as const;
export type BlogResponseField = (typeof BLOG_RESPONSE_FIELDS)[number];

/**
 * The fields a `fields` value names (`id,title`), in {@link BLOG_RESPONSE_FIELDS} order.
 * @returns undefined unless it is a non-empty comma-separated list of distinct field names.
 */
export function parseFieldList(text: string): BlogResponseField[] | undefined {
  const names = text.split(',');
  const known = new Set<string>(BLOG_RESPONSE_FIELDS);
  if (new Set(names).size !== names.length || !names.every((name) => known.has(name))) return undefined;
  return BLOG_RESPONSE_FIELDS.filter((field) => names.includes(field));
}

/** Most tags one list may ask for. */
export const MAX_TAG_FILTER = 5;

/**
 * The distinct tag slugs a `tag` value names (`nestjs,databases`), in the order given.
 * @returns undefined unless it is a comma-separated list of 1 to {@link MAX_TAG_FILTER} slugs.
 */
export function parseTagList(text: string): string[] | undefined {
  const slugs = text.split(',');
  if (slugs.length > MAX_TAG_FILTER || !slugs.every((slug) => isSlug(slug) && slug.length <= TAG_LIMITS.slug.max)) {
    return undefined;
  }
  return [...new Set(slugs)];
}

/**
 * Most terms (words, each once) one search may name: with its 200 characters this bounds a search's work, a phrase's
 * length included (docs/api.md, "Search").
 */
export const MAX_SEARCH_TERMS = 16;

/**
 * The most matches a search counts: its `total` is exact up to this many; past it, `total` is this many and its
 * relation `gte` (docs/api.md, "The envelope").
 */
export const SEARCH_TOTAL_CAP = 10_000;

/**
 * The most matches a search that counts reads: past {@link SEARCH_TOTAL_CAP}, the room the later searches of its key
 * have to answer `gte` without counting (docs/architecture.md, "The list queries").
 */
export const SEARCH_COUNT_LIMIT = 2 * SEARCH_TOTAL_CAP + 1;

/** What a search that counted read: its matches (up to {@link SEARCH_COUNT_LIMIT}), the write position, the margin. */
export interface SearchCount {
  readonly counted: number;
  /** The position of the blogs' writes (the change feed's sequence) read before the count's snapshot. */
  readonly position: number;
  /** The writes a position may miss: those in flight at the count's snapshot and those a replica sees logged ahead. */
  readonly margin: number;
}

/**
 * Whether a search still has more than {@link SEARCH_TOTAL_CAP} matches at the write position `current`: each write
 * since `count` removes at most one match, and it moves the position by at least one, but for the margin.
 */
export function searchStillPastCap(count: SearchCount, current: number): boolean {
  return Math.abs(current - count.position) + count.margin < count.counted - SEARCH_TOTAL_CAP;
}

/** Filters of the list, combined with AND; instants are compared strictly, to the millisecond. */
export interface BlogFilters {
  /** `author` equals it exactly. */
  readonly author?: string;
  /** `websearch_to_tsquery('simple', q)` matches `title` and `content`. */
  readonly q?: string;
  readonly createdAfter?: Date;
  readonly createdBefore?: Date;
  readonly updatedAfter?: Date;
  /** Blogs that have every one of these tag slugs. */
  readonly tag?: readonly string[];
}

/**
 * Where a keyset page starts: after the blog with this `id` and this value of the sort field (none for `id`; null for
 * a draft's `publishedAt`).
 */
export interface BlogListPosition {
  readonly id: number;
  readonly value?: Date | string | null;
}

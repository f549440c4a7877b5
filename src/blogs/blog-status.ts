import { versionedEntityTag, versionState } from '../common/http/versioned-entity-tag';

/** Where a blog stands: kept back, waiting for its instant, or live. */
export const BLOG_STATUSES = ['draft', 'scheduled', 'published'] as const;
export type BlogStatus = (typeof BLOG_STATUSES)[number];

/** The `status` of the list: one status, or `any`. */
export const BLOG_LIST_STATUSES = [...BLOG_STATUSES, 'any'] as const;
export type BlogListStatus = (typeof BLOG_LIST_STATUSES)[number];

/** What a blog's status is derived from. */
interface Published {
  readonly publishedAt: Date | null;
}

/** The status of a blog at `now`: `draft` without `publishedAt`, `scheduled` before it, `published` from it on. */
export function blogStatus({ publishedAt }: Published, now: Date): BlogStatus {
  if (publishedAt === null) return 'draft';
  return publishedAt.getTime() > now.getTime() ? 'scheduled' : 'published';
}

/**
 * SQL: the blog row (`alias`; none: the statement's one table) is live at the instant `now` (a parameter), as
 * {@link blogStatus} says `published`. Written so that no index serves it: nearly every blog is live, and a planner that
 * walked `published_at` for it would pass over the index of the order or the search.
 */
export const liveSql = (now: string, alias?: string): string =>
  `COALESCE(${alias === undefined ? '' : `${alias}.`}"published_at", 'infinity') <= ${now}`;

/**
 * SQL: the same rule as {@link liveSql}, spelled as a range of `published_at` that its index serves: for a statement
 * that walks live blogs by `published_at` (a feed), where the index is the plan.
 */
export const liveRangeSql = (now: string, alias?: string): string =>
  `${alias === undefined ? '' : `${alias}.`}"published_at" <= ${now}`;

/** A blog's entity-tag variant: `scheduled` until its instant, so that no tag outlives the status it described. */
const variantOf = (blog: Published, now: Date): string | undefined =>
  blogStatus(blog, now) === 'scheduled' ? 'scheduled' : undefined;

/** The strong `ETag` of a blog at `now`: `"<id>-<version>"`, `"<id>-<version>-scheduled"` while scheduled. */
export function blogEntityTag(blog: Published & { readonly id: number; readonly version: number }, now: Date): string {
  return versionedEntityTag({ id: blog.id, version: blog.version, variant: variantOf(blog, now) });
}

/** The state its entity tag names ({@link versionState}), as write refusals compare it. */
export function blogState(blog: Published & { readonly version: number }, now: Date): string {
  return versionState(blog.version, variantOf(blog, now));
}

/** SQL: the state a row's entity tag names at the instant `now` (a parameter), as {@link blogState}. */
export const blogStateSql = (now: string): string =>
  `("version"::text || CASE WHEN "published_at" > ${now} THEN '-scheduled' ELSE '' END)`;

/** The orders of the tag list: `-count` (most live blogs first, ties by slug) or `slug`; slugs compare code points. */
export const TAG_SORTS = ['-count', 'slug'] as const;
export type TagSort = (typeof TAG_SORTS)[number];

/** Most live blogs first. */
export const DEFAULT_TAG_SORT: TagSort = '-count';

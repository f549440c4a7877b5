/**
 * FROM-clause SQL: the blogs scheduled at the instant `now` (a parameter), as rows (`id`, `tag_slugs`) of the function
 * `scheduled_blogs` (migration `AddScheduledBlogs`). The function plans its own query, so a statement that reads it
 * keeps its generic plan at any table size (docs/performance.md, "Scheduled blogs behind a function").
 */
export const scheduledBlogs = (now: string): string => `"scheduled_blogs"(${now})`;

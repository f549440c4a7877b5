/** What a change did to a blog; `blog.published` follows the change that made it live, or its instant passing. */
export const EVENT_TYPES = ['blog.created', 'blog.updated', 'blog.deleted', 'blog.published'] as const;

/** One of {@link EVENT_TYPES}. */
export type EventType = (typeof EVENT_TYPES)[number];

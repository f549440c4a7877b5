/** Canonical path of the comments; `Location` headers point here. */
export const COMMENTS_PATH = '/api/v1/comments';

/** Canonical path of blog `blogId`'s comments (the list's `Link` header). */
export const blogCommentsPath = (blogId: number): string => `/api/v1/blogs/${blogId}/comments`;

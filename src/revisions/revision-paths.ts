import { BLOGS_PATH } from '../blogs/blog-paths';

/** Canonical path of blog `blogId`'s revisions (the list's `Link` header). */
export const blogRevisionsPath = (blogId: number): string => `${BLOGS_PATH}/${blogId}/revisions`;

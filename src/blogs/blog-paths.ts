/** Canonical path of the collection; `Location` headers point here. */
export const BLOGS_PATH = '/api/v1/blogs';

/** Scope (in the token's space-separated `scope` claim) that allows reading, updating and deleting any blog. */
export const BLOGS_ADMIN_SCOPE = 'blogs:admin';

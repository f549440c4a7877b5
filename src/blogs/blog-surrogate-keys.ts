/** `Surrogate-Key` of every list of blogs, whatever its filter (tags, which count blogs, carry it too). */
export const BLOG_LISTS_KEY = 'blogs';

/** `Surrogate-Key` of one blog's answers, by id or slug. */
export const blogKey = (id: number): string => `blog-${id}`;

/** The keys an event of blog `id` purges: its answers and every list (modules hanging off a blog add theirs). */
export const blogEventKeys = (id: number): string[] => [blogKey(id), BLOG_LISTS_KEY];

/** `Surrogate-Key` of blog `blogId`'s comment list; the blog's events purge it too (`CommentEvents`' `purgedBy`). */
export const blogCommentsKey = (blogId: number): string => `comments-${blogId}`;

/** `Surrogate-Key`s of one comment's answer: its own and its blog's comments'. */
export const commentKeys = (id: number, blogId: number): string => `comment-${id} ${blogCommentsKey(blogId)}`;

/** The keys an event of comment `id` of blog `blogId` purges. */
export const commentEventKeys = (id: number, blogId: number): string[] => [`comment-${id}`, blogCommentsKey(blogId)];

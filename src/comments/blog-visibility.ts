import type { Principal } from '../auth/principal';
import { requiredOwner } from '../auth/required-owner';
import { blogStatus } from '../blogs/blog-status';
import { BLOGS_ADMIN_SCOPE } from '../blogs/blogs.constants';

/** What decides who may read a blog: its owner and when it is published (null: a draft). */
export interface BlogAccess {
  readonly ownerSub: string;
  readonly publishedAt: Date | null;
}

/**
 * Whether `principal` may read the blog at `now`, as the blog routes decide it (docs/api.md, "Who sees what"): anyone
 * a live one, else only its owner and a `blogs:admin` token.
 */
export function mayReadBlog(blog: BlogAccess, principal: Principal | undefined, now: Date): boolean {
  if (blogStatus(blog, now) === 'published') return true;
  return principal !== undefined && [undefined, blog.ownerSub].includes(requiredOwner(principal, BLOGS_ADMIN_SCOPE));
}

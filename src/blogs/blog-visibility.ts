import { Injectable, NotFoundException } from '@nestjs/common';
import type { Principal } from '../auth/principal';
import { requiredOwner } from '../auth/required-owner';
import { notFound, ResourceWording } from '../common/http/write-refusal';
import { isForeignKeyViolation } from '../database/database-errors';
import { blogStatus, liveRangeSql, liveSql } from './blog-status';
import { BLOGS_ADMIN_SCOPE } from './blogs.constants';

/** How errors name a blog, wherever it is read: a hidden blog reads like a missing one. */
export const BLOG_WORDING: ResourceWording = { title: 'Blog', noun: 'blog', adminScope: BLOGS_ADMIN_SCOPE };

/**
 * A write of what belongs to a blog met the blog's deletion (its foreign key refused the row): a repository throws it,
 * the service answers {@link BlogVisibility.notFound}, as for a missing blog.
 */
export class BlogGoneError extends Error {
  override readonly name = 'BlogGoneError';
}

/** `write` under blog `blogId`, a refusal by one of its foreign keys `keys` to `blogs` thrown as {@link BlogGoneError}. */
export function whileBlogExists<T>(blogId: number, keys: readonly string[], write: Promise<T>): Promise<T> {
  return write.catch((error: unknown) => {
    throw isForeignKeyViolation(error, keys)
      ? new BlogGoneError(`blog ${blogId} was deleted`, { cause: error })
      : error;
  });
}

/** What decides who may read a blog: its owner and when it is published (null: a draft). */
export interface BlogAccess {
  readonly ownerSub: string;
  readonly publishedAt: Date | null;
}

/**
 * Who reads: null for a `blogs:admin` token (every blog), a token's `sub` (its own blogs), undefined without a token;
 * as SQL takes it, null or the `sub` (a statement runs for a token).
 */
type Reader = string | null | undefined;

/** One clause of the rule, in TypeScript and in SQL over the blog row `blog`, the reader `reader` and the instant `now`. */
interface Clause {
  holds(blog: BlogAccess, reader: Reader, now: Date): boolean;
  sql(blog: string, reader: string, now: string): string;
}

/** Anyone reads a live blog: one published at or before `now`. */
const LIVE: Clause = {
  holds: (blog, _reader, now) => blogStatus(blog, now) === 'published',
  sql: (blog, _reader, now) => liveSql(now, blog),
};

/** Who may read a blog (docs/api.md, "Who sees what"): any of these holds. */
const CLAUSES: readonly Clause[] = [
  LIVE,
  { holds: (_blog, reader) => reader === null, sql: (_blog, reader) => `${reader}::text IS NULL` },
  {
    holds: (blog, reader) => reader !== undefined && reader === blog.ownerSub,
    sql: (blog, reader) => `${blog}."owner_sub" = ${reader}`,
  },
];

/**
 * The blog visibility policy, for blogs and every module that shows what belongs to a blog: anyone reads a live blog,
 * only its owner and a `blogs:admin` token a draft or a scheduled one. Its TypeScript predicate and its SQL fragment
 * are made from one list of clauses.
 */
@Injectable()
export class BlogVisibility {
  /**
   * `blog` when `principal` may read it at `now`.
   * @throws NotFoundException (404 `Blog <id> not found`, as for a missing blog) when it is null or hidden from them.
   */
  readable<B extends BlogAccess>(blog: B | null, id: number | string, principal: Principal | undefined, now: Date): B {
    if (blog === null || !this.mayRead(blog, principal, now)) throw this.notFound(id);
    return blog;
  }

  /**
   * `found`, an item read with its blog, when `principal` may read the blog at `now`.
   * @throws NotFoundException (404 `<wording.title> <id> not found`) when it is null or its blog is hidden from them.
   */
  visible<F extends { readonly blog: BlogAccess }>(
    found: F | null,
    principal: Principal | undefined,
    now: Date,
    wording: ResourceWording,
    id: number | string,
  ): F {
    if (found === null || !this.mayRead(found.blog, principal, now)) throw notFound(wording, id);
    return found;
  }

  /** 404: no blog `id` (an id or a slug), or one the caller may not read: the two answers are alike. */
  notFound(id: number | string): NotFoundException {
    return notFound(BLOG_WORDING, id);
  }

  /** A `catch` handler of a write under blog `id`: {@link BlogGoneError} becomes {@link notFound}; others pass on. */
  goneAsNotFound(id: number): (error: unknown) => never {
    return (error) => {
      throw error instanceof BlogGoneError ? this.notFound(id) : error;
    };
  }

  /** Whether `principal` (undefined: no token) may read `blog` at `now`. */
  mayRead(blog: BlogAccess, principal: Principal | undefined, now: Date): boolean {
    const reader = this.reader(principal);
    return CLAUSES.some((clause) => clause.holds(blog, reader, now));
  }

  /** The reader parameter of {@link condition}: null for `blogs:admin`, else the token's `sub`. */
  reader(principal: Principal): string | null;
  reader(principal: Principal | undefined): Reader;
  reader(principal: Principal | undefined): Reader {
    return principal === undefined ? undefined : (requiredOwner(principal, BLOGS_ADMIN_SCOPE) ?? null);
  }

  /**
   * SQL: whether the blog row `blog` (an alias) may be read by the parameter `reader` ({@link reader}) at the
   * parameter `now` (timestamptz), as {@link mayRead} decides it.
   */
  condition(blog: string, reader: string, now: string): string {
    return `(${CLAUSES.map((clause) => clause.sql(blog, reader, now)).join(' OR ')})`;
  }

  /**
   * SQL: the blog row `blog` is live at the parameter `now` ({@link liveRangeSql}, which the `published_at` index
   * serves): what every reader may read, whatever the token (feeds), and what takes comments.
   */
  liveCondition(blog: string, now: string): string {
    return liveRangeSql(now, blog);
  }

  /** SQL: the columns of the blog row `blog` that {@link accessOf} reads, for a select list. */
  columns(blog: string): string {
    return `${blog}."owner_sub" AS "blog_owner_sub", ${blog}."published_at" AS "blog_published_at"`;
  }

  /** The {@link BlogAccess} of a row that has {@link columns}. */
  accessOf(row: Record<string, unknown>): BlogAccess {
    const published = row.blog_published_at as string | Date | null;
    return { ownerSub: row.blog_owner_sub as string, publishedAt: published === null ? null : new Date(published) };
  }
}

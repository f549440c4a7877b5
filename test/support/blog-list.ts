import type { Response } from 'supertest';
import { BlogBody, BlogListBody, BLOGS, expectJsonError, messagesOf } from './blog-api';
import type { TestApp } from './test-app';

// Shared pieces of the list specs: blogs stored in one statement with chosen timestamps, the list
// asked for with parameters, and the order the API must answer, computed here independently.

/** A blog to store; timestamps default to the database clock, `updatedAt` to `createdAt`. */
export interface SeedBlog {
  readonly title: string;
  readonly content?: string;
  readonly author?: string;
  readonly createdAt?: string;
  readonly updatedAt?: string;
}

/**
 * Stores `blogs` in one `INSERT` (so that equal timestamps are really equal) after emptying the table,
 * and returns them as the API shows them, in the order given.
 */
export async function seedBlogs(t: TestApp, blogs: readonly SeedBlog[]): Promise<BlogBody[]> {
  await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
  const rows = blogs.map((blog, i) => ({
    i,
    title: blog.title,
    content: blog.content ?? `content of ${blog.title}`,
    author: blog.author ?? 'Alice',
    created_at: blog.createdAt ?? null,
    updated_at: blog.updatedAt ?? blog.createdAt ?? null,
  }));
  const stored: Record<string, unknown>[] = await t.dataSource.query(
    `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
     SELECT r.title, r.content, r.author, 'seed', coalesce(r.created_at, now()), coalesce(r.updated_at, r.created_at, now())
     FROM jsonb_to_recordset($1::jsonb) AS r(i int, title text, content text, author text, created_at timestamptz, updated_at timestamptz)
     ORDER BY r.i
     RETURNING id, title, content, author, created_at, updated_at, published_at, slug`,
    [JSON.stringify(rows)],
  );
  return stored
    .map((row) => ({
      id: Number(row.id),
      title: row.title as string,
      content: row.content as string,
      author: row.author as string,
      createdAt: new Date(row.created_at as string | Date).toISOString(),
      updatedAt: new Date(row.updated_at as string | Date).toISOString(),
      status: 'published' as const,
      publishedAt: new Date(row.published_at as string | Date).toISOString(),
      slug: row.slug as string,
      tags: [],
    }))
    .sort((a, b) => a.id - b.id);
}

/** The list's query string for `params`, in the order given. */
export function listQuery(params: Readonly<Record<string, string | number>>): string {
  return new URLSearchParams(
    Object.entries(params).map(([name, value]): [string, string] => [name, String(value)]),
  ).toString();
}

/** A 200 list answer: the envelope and its `Link` header (undefined when absent). */
export interface ListAnswer {
  readonly body: BlogListBody;
  readonly link: string | undefined;
}

/** GETs the list with `params` (or a raw `path?query`) and expects 200 with the five-field envelope. */
export async function listBlogs(
  t: TestApp,
  params: Readonly<Record<string, string | number>> | string,
): Promise<ListAnswer> {
  const path = typeof params === 'string' ? params : `${BLOGS}?${listQuery(params)}`;
  const res = await t.http.get(path);
  expect({ path, status: res.status, body: res.status === 200 ? 'envelope' : res.body }).toEqual({
    path,
    status: 200,
    body: 'envelope',
  });
  expect(Object.keys(res.body).sort()).toEqual(['data', 'limit', 'nextCursor', 'offset', 'total', 'totalRelation']);
  return { body: res.body as BlogListBody, link: res.headers.link };
}

/** 400 with the JSON error body, every message naming `parameter`. */
export function expectRejected(res: Response, parameter: string): void {
  expectJsonError(res, 400);
  const messages = messagesOf(res);
  expect({ parameter, messages, named: messages.every((m) => m.includes(parameter)) }).toEqual({
    parameter,
    messages,
    named: true,
  });
}

/** Compares by Unicode code points, as `COLLATE "C"` compares UTF-8 bytes (not by UTF-16 units as `<` does). */
function compareCodePoints(a: string, b: string): number {
  const [x, y] = [[...a], [...b]];
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const difference = (x[i].codePointAt(0) ?? 0) - (y[i].codePointAt(0) ?? 0);
    if (difference !== 0) return difference;
  }
  return x.length - y.length;
}

/** The ids of `blogs` in the order of `sort` (the API's sort values), ties broken by id in the same direction. */
export function orderOf(blogs: readonly BlogBody[], sort: string): number[] {
  const descending = sort.startsWith('-');
  const field = (descending ? sort.slice(1) : sort) as 'createdAt' | 'updatedAt' | 'title' | 'id';
  const compare = (a: BlogBody, b: BlogBody): number => {
    const byField =
      field === 'id'
        ? 0
        : field === 'title'
          ? compareCodePoints(a.title, b.title)
          : Date.parse(a[field]) - Date.parse(b[field]);
    return byField !== 0 ? byField : a.id - b.id;
  };
  return [...blogs].sort((a, b) => (descending ? -compare(a, b) : compare(a, b))).map((blog) => blog.id);
}

/** The path and query of a `Link: <…>; rel="next"` header value. */
export function nextLinkTarget(link: string | undefined): string {
  const match = /^<([^>]+)>; rel="next"$/.exec(link ?? '');
  expect({ link, wellFormed: match !== null }).toEqual({ link, wellFormed: true });
  return match?.[1] ?? '';
}

import type { Response } from 'supertest';
import type { TestApp } from './test-app';
import { PROBLEM_CONTENT_TYPE, problemBody } from './problem';

// Shared pieces of the blog e2e specs: the API's path and shapes, the blog factory, and the checks
// every spec makes the same way (the JSON error body, the 401 challenge, what is stored).

/** The canonical path of the blogs collection (`/api/blogs` and `/v1/blogs` are aliases). */
export const BLOGS = '/api/v1/blogs';

/** The largest PostgreSQL `integer` (int4): the largest well-formed id and offset. */
export const INT4_MAX = 2_147_483_647;

/** The fields of a blog in a response, sorted: exactly these, the owner never among them. */
export const BLOG_FIELDS: readonly string[] = [
  'author',
  'content',
  'createdAt',
  'id',
  'publishedAt',
  'slug',
  'status',
  'tags',
  'title',
  'updatedAt',
];

/** ISO 8601, UTC, millisecond precision, `Z` suffix. */
export const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The body of a create or update. */
export interface BlogInput {
  title: string;
  content: string;
  author: string;
}

/** A blog as the API answers it. */
export interface BlogBody extends BlogInput {
  id: number;
  createdAt: string;
  updatedAt: string;
  status: 'draft' | 'scheduled' | 'published';
  publishedAt: string | null;
  slug: string;
  tags: string[];
}

/** The list envelope of `GET /api/v1/blogs`; `offset` is null on a page asked for with a cursor. */
export interface BlogListBody {
  data: BlogBody[];
  total: number;
  totalRelation: 'eq' | 'gte';
  limit: number;
  offset: number | null;
  nextCursor: string | null;
}

/** A stored row of `blogs`, timestamps as ISO strings. */
export interface StoredBlog extends BlogInput {
  id: number;
  ownerSub: string;
  createdAt: string;
  updatedAt: string;
}

/** A valid create or update body. */
export const BODY: Readonly<BlogInput> = { title: 'A title', content: 'Some content', author: 'Alice' };

/** A valid create or update body: {@link BODY} with `overrides`. */
export function blogInput(overrides: Partial<BlogInput> = {}): BlogInput {
  return { ...BODY, ...overrides };
}

let distinctInputs = 0;

/** A valid create or update body, distinct from every other one this process made: `<label> title <n>`, …. */
export function distinctBlogInput(label = 'blog'): BlogInput {
  distinctInputs += 1;
  return {
    title: `${label} title ${distinctInputs}`,
    content: `${label} content ${distinctInputs}`,
    author: `${label} author ${distinctInputs}`,
  };
}

/** A created blog: the 201 response, its body typed. */
type CreatedBlog = Response & { body: BlogBody };

/** Creates `blogInput(overrides)` owned by `sub` through `POST` on `path` and expects 201. */
export async function createBlog(
  t: TestApp,
  sub: string,
  overrides: Partial<BlogInput> = {},
  path: string = BLOGS,
): Promise<CreatedBlog> {
  const res = await t.http
    .post(path)
    .set('Authorization', bearer(t.token(sub)))
    .send(blogInput(overrides));
  expect(res.status).toBe(201);
  return res;
}

/** The `Authorization` header value for `token`. */
export function bearer(token: string): string {
  return `Bearer ${token}`;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls every 50 ms until `condition` holds (the test's timeout bounds the wait). */
export async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await sleep(50);
}

/** The `message` of an error body as a list (a single message becomes a list of one). */
export function messagesOf(res: Response): string[] {
  const { message } = res.body as { message: unknown };
  return Array.isArray(message) ? (message as string[]) : [String(message)];
}

/**
 * The error response for `status`: a problem details object served as `application/problem+json` (the request sends
 * no `Accept`), `error` the standard reason phrase, `message` a non-empty string or a non-empty list of non-empty
 * strings, and `errors` only on a `validation-error`.
 */
export function expectJsonError(res: Response, status: number): void {
  const body = res.body as { type?: string; errors?: unknown };
  const typed = body.type !== undefined && body.type !== 'about:blank';
  expect({ status: res.status, body }).toEqual({
    status,
    body: {
      ...problemBody(status, expect.anything()),
      ...(typed ? { type: expect.stringMatching(/\/problems\/[a-z-]+$/), title: expect.any(String) } : {}),
      ...(body.errors === undefined ? {} : { errors: expect.any(Array) }),
    },
  });
  expect(res.headers['content-type']).toMatch(PROBLEM_CONTENT_TYPE);
  const { message } = res.body as { message: unknown };
  const messages: unknown[] = Array.isArray(message) ? message : [message];
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) {
    expect(typeof m).toBe('string');
    expect((m as string).length).toBeGreaterThan(0);
  }
}

/** A 401: the JSON error body and a `WWW-Authenticate: Bearer…` challenge. */
export function expectUnauthorized(res: Response): void {
  expectJsonError(res, 401);
  expect(res.headers['www-authenticate']).toMatch(/^Bearer(\s|$)/);
}

/** The number of rows in `blogs`. */
export async function countBlogs(t: TestApp): Promise<number> {
  const rows: { n: number | string }[] = await t.dataSource.query('SELECT count(*) AS n FROM blogs');
  return Number(rows[0].n);
}

/**
 * What any write to `blogs` changes, read from the rows' headers without their contents: the row count, the last id
 * and the newest row version (`xmin`: an insert or update writes a row version of its own transaction).
 */
export async function blogsFingerprint(t: TestApp): Promise<string> {
  const [row]: unknown[] = await t.dataSource.query(
    'SELECT count(*) AS n, max(id) AS last, max(xmin::text::int8) AS newest FROM blogs',
  );
  return JSON.stringify(row);
}

/** The stored row of blog `id`, timestamps as ISO strings; undefined when absent. */
export async function storedBlog(t: TestApp, id: number): Promise<StoredBlog | undefined> {
  const rows: Record<string, unknown>[] = await t.dataSource.query(
    'SELECT id, title, content, author, owner_sub, created_at, updated_at FROM blogs WHERE id = $1',
    [id],
  );
  if (rows.length === 0) return undefined;
  const row = rows[0];
  return {
    id: Number(row.id),
    title: row.title as string,
    content: row.content as string,
    author: row.author as string,
    ownerSub: row.owner_sub as string,
    createdAt: new Date(row.created_at as string | Date).toISOString(),
    updatedAt: new Date(row.updated_at as string | Date).toISOString(),
  };
}

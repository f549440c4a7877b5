import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createBlogClient, type BlogClient } from '../clients/typescript/src';
import { BLOGS, BODY } from './support/blog-api';
import { createTestApp, TestApp } from './support/test-app';
import { problemBody } from './support/problem';

// The typed client (clients/typescript) against the real app over HTTP: every operation, the
// conditional requests and the error bodies, with the types the client derives from openapi.json.
describe('typed client (openapi-fetch) against the running service', () => {
  let t: TestApp;
  let baseUrl: string;
  let alice: BlogClient;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    const { port } = (t.app.getHttpServer() as Server).address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;
    alice = createBlogClient(baseUrl, { token: t.token('alice') });
  });

  afterAll(async () => {
    await t?.close();
  });

  async function create(title = BODY.title) {
    const { data, response } = await alice.POST('/api/v1/blogs', { body: { ...BODY, title } });
    if (!data) throw new Error(`create answered ${response.status}`);
    return { blog: data, etag: response.headers.get('etag') ?? '' };
  }

  it('createBlog: 201 with the blog, Location and ETag', async () => {
    const { data, error, response } = await alice.POST('/api/v1/blogs', { body: BODY });

    expect(response.status).toBe(201);
    expect(error).toBeUndefined();
    expect(data).toMatchObject(BODY);
    expect(response.headers.get('location')).toBe(`${BLOGS}/${data?.id}`);
    expect(response.headers.get('etag')).toMatch(/^"[^"]+"$/);
  });

  it('createBlog: the body is typed', async () => {
    // @ts-expect-error `title` must be a string
    const { response } = await alice.POST('/api/v1/blogs', { body: { ...BODY, title: 42 } });

    expect(response.status).toBe(400);
  });

  // openapi-fetch infers its options as a type parameter, which escapes TypeScript's excess property check: the
  // client's own method types refuse what the server refuses.
  it.each([
    [
      'POST with { ...blog, extra: 1 }',
      () =>
        alice.POST('/api/v1/blogs', {
          // @ts-expect-error `extra` is not a field of CreateBlogDto
          body: { ...BODY, extra: 1 },
        }),
    ],
    [
      'PUT with { ...blog, extra: 1 }',
      async () =>
        alice.PUT('/api/v1/blogs/{id}', {
          params: { path: { id: (await create()).blog.id } },
          // @ts-expect-error `extra` is not a field of UpdateBlogDto
          body: { ...BODY, extra: 1 },
        }),
    ],
    [
      "PATCH with { titel: 'x' }",
      async () =>
        alice.PATCH('/api/v1/blogs/{id}', {
          params: { path: { id: (await create()).blog.id } },
          // @ts-expect-error `titel` is not a field of PatchBlogDto
          body: { titel: 'x' },
        }),
    ],
  ])('%s: a compile error, and the server answers 400', async (_name, send) => {
    const { error, response } = await send();

    expect(response.status).toBe(400);
    expect(error?.statusCode).toBe(400);
  });

  it('listBlogs with limit and offset: the page and the envelope', async () => {
    const first = await create('list one');
    await create('list two');

    const { data, response } = await alice.GET('/api/v1/blogs', { params: { query: { limit: 1, offset: 1 } } });

    expect(response.status).toBe(200);
    expect(data?.limit).toBe(1);
    expect(data?.offset).toBe(1);
    expect(data?.total).toBeGreaterThanOrEqual(2);
    // Newest first: offset 1 skips the second blog.
    expect(data?.data.map((blog) => blog.id)).toEqual([first.blog.id]);
  });

  it('getBlog: 200 with the blog and its ETag', async () => {
    const { blog, etag } = await create();

    const { data, response } = await alice.GET('/api/v1/blogs/{id}', { params: { path: { id: blog.id } } });

    expect(response.status).toBe(200);
    expect(data).toEqual(blog);
    expect(response.headers.get('etag')).toBe(etag);
  });

  it('getBlog with the current ETag in If-None-Match: 304, neither data nor error', async () => {
    const { blog, etag } = await create();

    const { data, error, response } = await alice.GET('/api/v1/blogs/{id}', {
      params: { path: { id: blog.id }, header: { 'If-None-Match': etag } },
    });

    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(etag);
    expect(data).toBeUndefined();
    expect(error).toBeUndefined();
  });

  it('updateBlog with If-Match from the ETag: 200; the old ETag then: 412 with the error body', async () => {
    const { blog, etag } = await create();
    const update = { ...BODY, title: 'Updated' };
    const params = { path: { id: blog.id }, header: { 'If-Match': etag } };

    const updated = await alice.PUT('/api/v1/blogs/{id}', { params, body: update });
    expect(updated.response.status).toBe(200);
    expect(updated.data).toMatchObject({ id: blog.id, ...update });
    expect(updated.response.headers.get('etag')).not.toBe(etag);

    const stale = await alice.PUT('/api/v1/blogs/{id}', { params, body: { ...update, title: 'Lost' } });
    expect(stale.response.status).toBe(412);
    expect(stale.data).toBeUndefined();
    expect(stale.error?.statusCode).toBe(412);
    expect(stale.error?.error).toBe('Precondition Failed');
  });

  it('patchBlog with some fields: 200 with the whole blog; the body is typed (no null)', async () => {
    const { blog, etag } = await create();
    const params = { path: { id: blog.id }, header: { 'If-Match': etag } };

    const patched = await alice.PATCH('/api/v1/blogs/{id}', { params, body: { title: 'Patched' } });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toEqual({ ...blog, title: 'Patched', updatedAt: patched.data?.updatedAt });
    expect(patched.response.headers.get('etag')).not.toBe(etag);

    const nulled = await alice.PATCH('/api/v1/blogs/{id}', {
      params: { path: { id: blog.id } },
      // @ts-expect-error `title` may be left out, not set to null
      body: { title: null },
    });
    expect(nulled.response.status).toBe(400);
  });

  it('deleteBlog: 204 with neither data nor error; then getBlog: 404', async () => {
    const { blog } = await create();

    const { data, error, response } = await alice.DELETE('/api/v1/blogs/{id}', { params: { path: { id: blog.id } } });

    expect(response.status).toBe(204);
    expect(data).toBeUndefined();
    expect(error).toBeUndefined();
    const read = await alice.GET('/api/v1/blogs/{id}', { params: { path: { id: blog.id } } });
    expect(read.response.status).toBe(404);
  });

  it('getBlog of an unknown id: 404 with the error body', async () => {
    const { error, response } = await alice.GET('/api/v1/blogs/{id}', { params: { path: { id: 2_000_000_000 } } });

    expect(response.status).toBe(404);
    expect(error).toEqual(problemBody(404, expect.any(String)));
  });

  it('createBlog without a token: 401 with the error body and the challenge', async () => {
    const anonymous = createBlogClient(baseUrl);

    const { error, response } = await anonymous.POST('/api/v1/blogs', { body: BODY });

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(error?.statusCode).toBe(401);
  });

  it('an invalid query: 400 with the messages', async () => {
    const { error, response } = await alice.GET('/api/v1/blogs', { params: { query: { limit: 0 } } });

    expect(response.status).toBe(400);
    expect(error?.error).toBe('Bad Request');
    expect(error?.message).toEqual(expect.arrayContaining([expect.stringContaining('limit')]));
  });
});

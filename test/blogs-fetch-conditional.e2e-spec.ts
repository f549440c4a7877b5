/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { BLOGS, BODY, createBlog } from './support/blog-api';
import { useTestApp } from './support/test-app';

// The Fetch API (browsers, Node's fetch) adds `Cache-Control: no-cache` to every request carrying
// If-None-Match; the directive is for caches, so the origin still answers 304.
describe('conditional reads through the Fetch API', () => {
  const t = useTestApp();
  let url: string;
  let etag: string;

  beforeAll(async () => {
    const port = await t.listen();
    const created = await createBlog(t, 'alice', BODY);
    url = `http://127.0.0.1:${port}${BLOGS}/${created.body.id}`;
    etag = created.headers.etag;
  });

  it('fetch with the current ETag in If-None-Match gets 304 and the ETag, no body', async () => {
    const response = await fetch(url, { headers: { 'If-None-Match': etag } });

    expect(response.status).toBe(304);
    expect(response.headers.get('etag')).toBe(etag);
    expect(await response.text()).toBe('');
  });

  it.each([
    ['Cache-Control: no-cache', { 'Cache-Control': 'no-cache' }],
    ['Cache-Control: no-cache and Pragma: no-cache', { 'Cache-Control': 'no-cache', Pragma: 'no-cache' }],
  ])('a matching If-None-Match with %s is 304', async (_name, headers) => {
    await t.http
      .get(new URL(url).pathname)
      .set({ ...headers, 'If-None-Match': etag })
      .expect(304);
  });

  it('fetch with a stale ETag gets 200 with the blog', async () => {
    const response = await fetch(url, { headers: { 'If-None-Match': '"1-999"' } });

    expect(response.status).toBe(200);
    await expect(response.json()).resolves.toMatchObject(BODY);
  });
});

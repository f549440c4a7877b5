import { createServer, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BLOGS, bearer, BODY, sleep } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { startVarnish, varnishAvailable, VarnishServer } from './support/varnish-server';
import { eventually } from './support/webhook-receiver';

// The service behind a real varnishd running deploy/varnish/default.vcl, its purges sent to that Varnish
// (CACHE_PURGE_URLS): what is kept, what never is, and the bounds of docs/api.md "Caching" (2 s after a write's 2xx,
// 7 s after a scheduled blog's publishedAt). A counting proxy between Varnish and the service tells hits from fetches.

/** Reads through the cache are checked this long after a write's 2xx answer (the bound). */
const WRITE_BOUND_MS = 2_000;
/** And this long after a scheduled blog's `publishedAt`. */
const PUBLICATION_BOUND_MS = 7_000;

interface Read {
  status: number;
  body: Record<string, unknown> & { data?: { id: number; title: string }[] };
  cache: string | null;
}

/** An HTTP proxy to `port` that counts the requests it forwards. */
async function countingProxy(port: () => number): Promise<{ server: Server; port: number; count: () => number }> {
  let forwarded = 0;
  const server = createServer((incoming, outgoing) => {
    forwarded += 1;
    const upstream = httpRequest(
      { host: '127.0.0.1', port: port(), method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, count: () => forwarded };
}

(varnishAvailable() ? describe : describe.skip)('behind Varnish (e2e, deploy/varnish/default.vcl)', () => {
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let varnish: VarnishServer;
  let servicePort = 0;

  // First: the app's configuration names this Varnish.
  beforeAll(async () => {
    proxy = await countingProxy(() => servicePort);
    varnish = await startVarnish({ backendPort: proxy.port });
  });

  const t = useTestApp(() => ({ JOBS_ENABLED: 'true', RATE_LIMIT_ENABLED: 'false', CACHE_PURGE_URLS: varnish.url }));
  const owner = (): string => bearer(t.token('alice'));

  beforeAll(async () => {
    servicePort = await t.listen();
  });

  afterAll(async () => {
    await varnish?.close();
    proxy?.server.closeAllConnections();
    await new Promise((resolve) => proxy?.server.close(resolve));
  });

  async function read(path: string, authorization?: string): Promise<Read> {
    const response = await fetch(`${varnish.url}${path}`, {
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? {} : (JSON.parse(text) as Read['body']),
      cache: response.headers.get('x-cache'),
    };
  }

  async function createBlog(fields: Record<string, unknown> = {}): Promise<{ id: number; slug: string }> {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', owner())
      .send({ ...BODY, ...fields })
      .expect(201);
    return res.body as { id: number; slug: string };
  }

  /** Runs `write`, waits out the bound from its answer, and returns what the cache then serves at `path`. */
  async function afterBound(write: () => Promise<unknown>, path: string): Promise<Read> {
    await write();
    const answeredAt = Date.now();
    await sleep(WRITE_BOUND_MS - (Date.now() - answeredAt));
    return read(path);
  }

  it('a hit does not reach the service', async () => {
    const { id } = await createBlog();
    await sleep(WRITE_BOUND_MS);
    await read(`${BLOGS}/${id}`);
    const fetched = proxy.count();

    const reads = await Promise.all([1, 2, 3, 4, 5].map(() => read(`${BLOGS}/${id}`)));

    expect(reads.map(({ status, cache }) => ({ status, cache }))).toEqual(
      Array.from({ length: 5 }, () => ({ status: 200, cache: 'HIT' })),
    );
    expect(proxy.count()).toBe(fetched);
  });

  it('a request with Authorization always reaches the service', async () => {
    const { id } = await createBlog();
    await read(`${BLOGS}/${id}`);
    const fetched = proxy.count();

    const reads = [await read(`${BLOGS}/${id}`, owner()), await read(`${BLOGS}/${id}`, 'Bearer not-a-token')];

    expect(reads.map(({ status, cache }) => ({ status, cache }))).toEqual([
      { status: 200, cache: 'MISS' },
      { status: 200, cache: 'MISS' },
    ]);
    expect(proxy.count()).toBe(fetched + 2);
  });

  it.each([
    ['an update (PUT)', 'put'],
    ['a partial update (PATCH)', 'patch'],
  ])('%s shows through the cache 2 s after its answer, on the blog and in the list', async (_name, method) => {
    const { id } = await createBlog({ title: 'Before' });
    await sleep(WRITE_BOUND_MS);
    expect((await read(`${BLOGS}/${id}`)).body.title).toBe('Before');
    await read(`${BLOGS}?limit=100`);
    expect((await read(`${BLOGS}?limit=100`)).cache).toBe('HIT');

    const update = () =>
      method === 'put'
        ? t.http
            .put(`${BLOGS}/${id}`)
            .set('Authorization', owner())
            .send({ ...BODY, title: 'After' })
            .expect(200)
        : t.http.patch(`${BLOGS}/${id}`).set('Authorization', owner()).send({ title: 'After' }).expect(200);
    expect((await afterBound(update, `${BLOGS}/${id}`)).body.title).toBe('After');
    const list = await read(`${BLOGS}?limit=100`);
    expect(list.body.data?.find((blog) => blog.id === id)?.title).toBe('After');
  });

  it('a create shows in the cached list, a delete leaves the blog and the list 2 s after its answer', async () => {
    await read(`${BLOGS}?limit=100`);
    let id = 0;
    const created = await afterBound(async () => {
      id = (await createBlog()).id;
    }, `${BLOGS}?limit=100`);
    expect(created.body.data?.map((blog) => blog.id)).toContain(id);
    expect((await read(`${BLOGS}/${id}`)).status).toBe(200);

    const remove = () => t.http.delete(`${BLOGS}/${id}`).set('Authorization', owner()).expect(204);
    expect((await afterBound(remove, `${BLOGS}/${id}`)).status).toBe(404);
    expect((await read(`${BLOGS}?limit=100`)).body.data?.map((blog) => blog.id)).not.toContain(id);
  });

  it("comments: a new comment and a deleted one show in the blog's cached comments 2 s after the answer", async () => {
    const { id } = await createBlog();
    const comments = `${BLOGS}/${id}/comments`;
    await sleep(WRITE_BOUND_MS);
    expect((await read(comments)).body.total).toBe(0);
    expect((await read(comments)).cache).toBe('HIT');

    let commentId = 0;
    const comment = async () => {
      const res = await t.http
        .post(comments)
        .set('Authorization', owner())
        .send({ author: 'A', body: 'B' })
        .expect(201);
      commentId = (res.body as { id: number }).id;
    };
    expect((await afterBound(comment, comments)).body.total).toBe(1);
    expect((await read(`/api/v1/comments/${commentId}`)).status).toBe(200);

    const uncomment = () => t.http.delete(`/api/v1/comments/${commentId}`).set('Authorization', owner()).expect(204);
    expect((await afterBound(uncomment, comments)).body.total).toBe(0);
    expect((await read(`/api/v1/comments/${commentId}`)).status).toBe(404);
  });

  it('a draft is never served to an anonymous reader, not even right after its owner read it through the cache', async () => {
    const draft = await createBlog({ status: 'draft' });
    const paths = [`${BLOGS}/${draft.id}`, `${BLOGS}/slug/${draft.slug}`];

    for (const path of paths) {
      expect((await read(path, owner())).status).toBe(200);
      expect(await read(path)).toMatchObject({ status: 404, cache: 'MISS' });
      expect(await read(path)).toMatchObject({ status: 404, cache: 'MISS' });
    }
    expect((await read(`${BLOGS}?status=draft&limit=100`, owner())).body.data?.map((b) => b.id)).toContain(draft.id);
    expect((await read(`${BLOGS}?limit=100`)).body.data?.map((b) => b.id)).not.toContain(draft.id);
  });

  it('a scheduled blog appears through the cache at its instant (within 7 s), not before', async () => {
    const publishedAt = Date.now() + 4_000;
    const scheduled = await createBlog({ publishedAt: new Date(publishedAt).toISOString() });
    await sleep(WRITE_BOUND_MS);
    const before = await read(`${BLOGS}?limit=100`);
    expect(before.body.data?.map((blog) => blog.id)).not.toContain(scheduled.id);
    expect((await read(`${BLOGS}/${scheduled.id}`)).status).toBe(404);
    expect((await read(`${BLOGS}?limit=100`)).cache).toBe('HIT');

    await sleep(publishedAt + PUBLICATION_BOUND_MS - Date.now());

    expect((await read(`${BLOGS}?limit=100`)).body.data?.map((blog) => blog.id)).toContain(scheduled.id);
    expect((await read(`${BLOGS}/${scheduled.id}`)).status).toBe(200);
  });

  it('HEAD and If-None-Match are answered from the cache, with the public headers', async () => {
    const { id } = await createBlog();
    await sleep(WRITE_BOUND_MS);
    const first = await fetch(`${varnish.url}${BLOGS}/${id}`);
    const etag = first.headers.get('etag') ?? '';
    await first.text();
    const fetched = proxy.count();

    const head = await fetch(`${varnish.url}${BLOGS}/${id}`, { method: 'HEAD' });
    const notModified = await fetch(`${varnish.url}${BLOGS}/${id}`, { headers: { 'If-None-Match': etag } });

    expect([head.status, notModified.status]).toEqual([200, 304]);
    for (const response of [head, notModified]) {
      expect(response.headers.get('cache-control')).toBe('public, max-age=0, s-maxage=86400');
      expect(response.headers.get('surrogate-key')).toBe(`blog-${id}`);
      expect(response.headers.get('xkey')).toBeNull();
    }
    expect(proxy.count()).toBe(fetched);
  });

  it("refuses a PURGE without keys; the service's purges were answered 2xx", async () => {
    const refused = await fetch(`${varnish.url}/`, { method: 'PURGE' });
    expect(refused.status).toBe(400);
    await eventually(
      async () => (await t.http.get('/metrics')).text.includes('cache_purges_total{outcome="sent"}'),
      'a purge sent',
      10_000,
    );
  });
});

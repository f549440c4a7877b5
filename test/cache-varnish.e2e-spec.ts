import { createServer, request as httpRequest, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BLOGS, bearer, BODY, sleep } from './support/blog-api';
import { allPurged } from './support/cache-purges';
import { TcpProxy } from './support/tcp-proxy';
import { useTestApp } from './support/test-app';
import { startVarnish, varnishUnavailableReason, VarnishServer } from './support/varnish-server';
import { eventually } from './support/webhook-receiver';

// The service behind a real varnishd running deploy/varnish/default.vcl, its purges sent to that Varnish
// (CACHE_PURGE_URLS): what is kept, what never is, and the bounds of docs/api.md "Caching" (2 s after a write's 2xx,
// 7 s after a scheduled blog's publishedAt). A counting proxy between Varnish and the service tells hits from fetches,
// and holds the answers of requests marked `X-Test-Hold` (a read slower than a write and its purge). The service's
// purges reach Varnish from 127.0.0.2, outside the `purgers` ACL: they pass with CACHE_PURGE_TOKEN.

/** Reads through the cache are checked this long after a write's 2xx answer (the bound). */
const WRITE_BOUND_MS = 2_000;
/** And this long after a scheduled blog's `publishedAt`. */
const PUBLICATION_BOUND_MS = 7_000;

/** `Cache-Control` of a public answer with the defaults (CACHE_MAX_AGE=0, CACHE_SHARED_MAX_AGE=86400). */
const PUBLIC = 'public, max-age=0, s-maxage=86400';

/** CACHE_PURGE_TOKEN of both the service and varnishd. */
const PURGE_TOKEN = 'cache-varnish-e2e-purge-token-0123456789';

/** Request header that makes the proxy hold the service's answer until {@link HeldAnswers.release}. */
const HOLD = 'x-test-hold';

interface Read {
  status: number;
  body: Record<string, unknown> & { data?: { id: number; title: string }[] };
  cache: string | null;
  cacheControl: string | null;
  keys: string | null;
  requestId: string | null;
}

/** Answers held by the proxy: how many it holds, and releasing them all to Varnish. */
interface HeldAnswers {
  count(): number;
  release(): void;
}

/**
 * An HTTP proxy to `port` that counts the requests it forwards; the answer to a request with {@link HOLD} is read whole
 * from the service, then held until `held.release()`.
 */
async function countingProxy(
  port: () => number,
): Promise<{ server: Server; port: number; count: () => number; held: HeldAnswers }> {
  let forwarded = 0;
  let holding: (() => void)[] = [];
  const server = createServer((incoming, outgoing) => {
    forwarded += 1;
    const upstream = httpRequest(
      { host: '127.0.0.1', port: port(), method: incoming.method, path: incoming.url, headers: incoming.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          const send = () => outgoing.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks));
          if (incoming.headers[HOLD] === undefined) send();
          else holding.push(send);
        });
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const held: HeldAnswers = {
    count: () => holding.length,
    release: () => {
      for (const send of holding) send();
      holding = [];
    },
  };
  return { server, port: (server.address() as AddressInfo).port, count: () => forwarded, held };
}

const unavailable = varnishUnavailableReason();
if (unavailable !== undefined) process.stderr.write(`SKIPPING the Varnish tests: ${unavailable}\n`);

(unavailable === undefined ? describe : describe.skip)(
  `behind Varnish (e2e, deploy/varnish/default.vcl)${unavailable === undefined ? '' : ` — SKIPPED: ${unavailable}`}`,
  () => {
    let proxy: Awaited<ReturnType<typeof countingProxy>>;
    let varnish: VarnishServer;
    let purgeRoute: TcpProxy;
    let servicePort = 0;

    // First: the app's configuration names this Varnish, reached from 127.0.0.2.
    beforeAll(async () => {
      proxy = await countingProxy(() => servicePort);
      varnish = await startVarnish({ backendPort: proxy.port, env: { CACHE_PURGE_TOKEN: PURGE_TOKEN } });
      purgeRoute = new TcpProxy({ host: '127.0.0.1', port: varnish.port, localAddress: '127.0.0.2' });
      await purgeRoute.listen();
    });

    const t = useTestApp(() => ({
      JOBS_ENABLED: 'true',
      RATE_LIMIT_ENABLED: 'false',
      CACHE_PURGE_URLS: `http://127.0.0.1:${purgeRoute.port}`,
      CACHE_PURGE_TOKEN: PURGE_TOKEN,
    }));
    const owner = (): string => bearer(t.token('alice'));

    beforeAll(async () => {
      servicePort = await t.listen();
    });

    afterAll(async () => {
      await purgeRoute?.refuse();
      await varnish?.close();
      proxy?.server.closeAllConnections();
      await new Promise((resolve) => proxy?.server.close(resolve));
    });

    async function read(path: string, authorization?: string, headers: Record<string, string> = {}): Promise<Read> {
      const response = await fetch(`${varnish.url}${path}`, {
        headers: authorization === undefined ? headers : { ...headers, Authorization: authorization },
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === '' ? {} : (JSON.parse(text) as Read['body']),
        cache: response.headers.get('x-cache'),
        cacheControl: response.headers.get('cache-control'),
        keys: response.headers.get('surrogate-key'),
        requestId: response.headers.get('x-request-id'),
      };
    }

    /**
     * `PURGE /` with `Surrogate-Key: keys`, sent from `localAddress` with `Authorization: authorization` when given: the
     * status and the `Purged` count.
     */
    /**
     * Reads `path` until the cache answers it (HIT), at most 5 times: a fetch that overlaps any purge, the service's
     * own included, is not stored (deploy/varnish/default.vcl), so one read alone may leave nothing to count.
     */
    async function cached(path: string): Promise<void> {
      let cache: string | null = null;
      for (let attempt = 0; attempt < 5 && cache !== 'HIT'; attempt += 1) cache = (await read(path)).cache;
      expect(cache).toBe('HIT');
    }

    function purge(
      keys: string,
      localAddress: string,
      authorization?: string,
    ): Promise<{ status: number; purged: string | undefined }> {
      return new Promise((resolve, reject) => {
        const request = httpRequest(
          { host: '127.0.0.1', port: varnish.port, method: 'PURGE', path: '/', localAddress },
          (answer) => {
            answer.resume();
            answer.on('end', () =>
              resolve({ status: answer.statusCode ?? 0, purged: answer.headers.purged as string }),
            );
          },
        );
        request.on('error', reject);
        request.setHeader('Surrogate-Key', keys);
        if (authorization !== undefined) request.setHeader('Authorization', authorization);
        request.end();
      });
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

      expect(reads.map(({ status, cache, cacheControl, keys }) => ({ status, cache, cacheControl, keys }))).toEqual([
        { status: 200, cache: 'MISS', cacheControl: 'no-store', keys: null },
        { status: 200, cache: 'MISS', cacheControl: 'no-store', keys: null },
      ]);
      expect(proxy.count()).toBe(fetched + 2);
      expect(await read(`${BLOGS}/${id}`)).toMatchObject({ status: 200, cacheControl: PUBLIC, keys: `blog-${id}` });
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

    it('publishing a draft (PATCH status) shows it in the cached list and by id 2 s after the answer', async () => {
      const draft = await createBlog({ status: 'draft' });
      await sleep(WRITE_BOUND_MS);
      await read(`${BLOGS}?limit=100`);
      const before = await read(`${BLOGS}?limit=100`);
      expect(before.cache).toBe('HIT');
      expect(before.body.data?.map((blog) => blog.id)).not.toContain(draft.id);

      const publish = () =>
        t.http.patch(`${BLOGS}/${draft.id}`).set('Authorization', owner()).send({ status: 'published' }).expect(200);
      expect((await afterBound(publish, `${BLOGS}?limit=100`)).body.data?.map((blog) => blog.id)).toContain(draft.id);
      expect(await read(`${BLOGS}/${draft.id}`)).toMatchObject({ status: 200, keys: `blog-${draft.id}` });
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

    it('a HEAD that misses is fetched as a GET: the GET after it is a hit with the body; a Cookie changes nothing', async () => {
      const { id } = await createBlog({ title: 'Fetched by a HEAD' });
      await sleep(WRITE_BOUND_MS);
      const head = await fetch(`${varnish.url}${BLOGS}/${id}`, { method: 'HEAD' });
      expect([head.status, head.headers.get('x-cache')]).toEqual([200, 'MISS']);
      const fetched = proxy.count();

      const reads = [await read(`${BLOGS}/${id}`), await read(`${BLOGS}/${id}`, undefined, { Cookie: 'session=1' })];

      expect(reads.map(({ status, cache, body }) => [status, cache, body.title])).toEqual([
        [200, 'HIT', 'Fetched by a HEAD'],
        [200, 'HIT', 'Fetched by a HEAD'],
      ]);
      expect(proxy.count()).toBe(fetched);
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
        expect(response.headers.get('cache-control')).toBe(PUBLIC);
        expect(response.headers.get('surrogate-key')).toBe(`blog-${id}`);
        expect(response.headers.get('xkey')).toBeNull();
      }
      expect(proxy.count()).toBe(fetched);
    });

    it('PURGE by key answers how many objects it removed, and only to this host or with the token (403 otherwise)', async () => {
      const { id, slug } = await createBlog();
      await allPurged(t);
      const paths = [`${BLOGS}/${id}`, `${BLOGS}/slug/${slug}`];
      for (const path of paths) await cached(path);

      // 127.0.0.2 is this host's loopback too, but not in `purgers` (localhost, 127.0.0.1, ::1).
      for (const authorization of [undefined, 'Bearer ', `Bearer ${PURGE_TOKEN}x`, PURGE_TOKEN, `Basic ${PURGE_TOKEN}`])
        expect(await purge(`blog-${id}`, '127.0.0.2', authorization)).toEqual({ status: 403, purged: undefined });
      expect(await Promise.all(paths.map(async (path) => (await read(path)).cache))).toEqual(['HIT', 'HIT']);
      expect(await purge(`blog-${id}`, '127.0.0.2', `Bearer ${PURGE_TOKEN}`)).toEqual({ status: 200, purged: '2' });
      for (const path of paths) await cached(path);

      expect(await purge(`other-key blog-${id}`, '127.0.0.1')).toEqual({ status: 200, purged: '2' });
      expect(await Promise.all(paths.map(async (path) => (await read(path)).cache))).toEqual(['MISS', 'MISS']);
      for (const path of paths) await cached(path);
      expect(await purge(`blog-${id}`, '127.0.0.1')).toEqual({ status: 200, purged: '2' });
      expect(await purge(`blog-${id}`, '127.0.0.1')).toEqual({ status: 200, purged: '0' });
    });

    it("refuses a PURGE without keys; the service's purges, from 127.0.0.2 with the token, were answered 2xx", async () => {
      const refused = await fetch(`${varnish.url}/`, { method: 'PURGE' });
      expect(refused.status).toBe(400);
      await eventually(
        async () => (await t.http.get('/metrics')).text.includes('cache_purges_total{outcome="sent"}'),
        'a purge sent',
        10_000,
      );
      expect((await t.http.get('/metrics')).text).not.toContain('cache_purges_total{outcome="failed"}');
    });

    it("a hit carries the caller's own X-Request-Id, or none: never the one of the request that filled the cache", async () => {
      const { id } = await createBlog();
      await allPurged(t);
      const path = `${BLOGS}/${id}`;

      const reads = [
        await read(path, undefined, { 'X-Request-Id': 'attacker-chosen-id' }),
        await read(path, undefined, { 'X-Request-Id': 'my-own-id' }),
        await read(path),
        await read(path, undefined, { 'X-Request-Id': 'not an acceptable id' }),
      ];

      expect(reads.map(({ cache, requestId }) => [cache, requestId])).toEqual([
        ['MISS', 'attacker-chosen-id'],
        ['HIT', 'my-own-id'],
        ['HIT', null],
        ['HIT', null],
      ]);
    });

    it.each([
      ['the list', () => `${BLOGS}?limit=100`],
      ['a search', () => `${BLOGS}?limit=100&q=held`],
    ])(
      '%s read before an unpublish and answered after its purge is served to its caller, never from the cache afterwards',
      async (_name, listPath) => {
        const { id } = await createBlog({ title: 'held' });
        await allPurged(t);
        const byId = `${BLOGS}/${id}`;
        await read(byId);
        expect((await read(byId)).cache).toBe('HIT');
        const slowRead = read(listPath(), undefined, { [HOLD]: '1' });
        await eventually(() => proxy.held.count() === 1, 'the service to answer the held read', 10_000);

        await t.http.patch(byId).set('Authorization', owner()).send({ status: 'draft' }).expect(200);
        // The purge of blog-<id> and blogs reached Varnish: the blog is fetched again.
        await eventually(async () => (await read(byId)).cache === 'MISS', 'the purge of the unpublish', 10_000);
        proxy.held.release();
        const answered = await slowRead;

        expect(answered.body.data?.map((blog) => blog.id)).toContain(id);
        const after = [await read(listPath()), await read(listPath())];
        expect(after.map(({ cache, body }) => [cache, body.data?.map((blog) => blog.id).includes(id)])).toEqual([
          ['MISS', false],
          [expect.any(String), false],
        ]);
      },
    );
  },
);

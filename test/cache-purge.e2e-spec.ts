/**
 * @pgbouncer-and-replica
 */
import { BLOGS, bearer, BODY } from './support/blog-api';
import { createTestApp, TestApp, useTestApp } from './support/test-app';
import { E2E_ENV } from './support/test-database';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

// What shared caches may keep (Cache-Control, Surrogate-Key) and the purges that take it back, sent by the job library
// to a recording receiver that stands for a cache; test/cache-varnish.e2e-spec.ts runs a real Varnish.

const PUBLIC = 'public, max-age=0, s-maxage=86400';
const COMMENTS = '/api/v1/comments';

/** The keys of every purge request the receiver got from index `from` on, as one sorted list. */
const purgedKeys = (receiver: WebhookReceiver, from = 0): string[] =>
  receiver.received
    .slice(from)
    .flatMap(({ headers }) => String(headers['surrogate-key']).split(' '))
    .sort();

/** The value of Prometheus metric `name` (with its labels) in `text`, 0 when absent. */
const metric = (text: string, name: string): number =>
  Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

describe('shared caches (e2e)', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  describe('which answers a cache may keep', () => {
    const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
    let blog: { id: number; slug: string };
    let comment: { id: number };

    beforeAll(async () => {
      const owner = bearer(t.token('alice'));
      blog = (
        await t.http
          .post(BLOGS)
          .set('Authorization', owner)
          .send({ ...BODY, tags: ['nestjs'] })
      ).body as never;
      comment = (
        await t.http.post(`${BLOGS}/${blog.id}/comments`).set('Authorization', owner).send({ author: 'A', body: 'B' })
      ).body as never;
    });

    const reads = (): [string, string, string][] => [
      ['a blog', `${BLOGS}/${blog.id}`, `blog-${blog.id}`],
      ['a blog by slug', `${BLOGS}/slug/${blog.slug}`, `blog-${blog.id}`],
      ['the list of blogs', `${BLOGS}?limit=5`, 'blogs'],
      ['a filtered list', `${BLOGS}?tag=nestjs&q=title&fields=id,title`, 'blogs'],
      ['the list of tags', '/api/v1/tags', 'blogs'],
      ['a tag', '/api/v1/tags/nestjs', 'blogs'],
      ["a blog's comments", `${BLOGS}/${blog.id}/comments`, `comments-${blog.id}`],
      ['a comment', `${COMMENTS}/${comment.id}`, `comment-${comment.id} comments-${blog.id}`],
    ];

    it.each([0, 1, 2, 3, 4, 5, 6, 7])('public read #%i without Authorization: public, its keys, Vary', async (n) => {
      const [, path, keys] = reads()[n];
      const res = await t.http.get(path).expect(200);

      expect(res.headers['cache-control']).toBe(PUBLIC);
      expect(res.headers['surrogate-key']).toBe(keys);
      expect(res.headers.vary).toMatch(/\bAuthorization\b/);
    });

    it.each([
      ['a valid token', () => bearer(t.token('alice'))],
      ['an invalid token', () => 'Bearer not-a-token'],
      ['another scheme', () => 'Basic YTpi'],
    ])('with %s every read is no-store, without keys', async (_name, authorization) => {
      for (const [name, path] of reads()) {
        const res = await t.http.get(path).set('Authorization', authorization());
        expect({ name, status: res.status, cacheControl: res.headers['cache-control'] }).toEqual({
          name,
          status: 200,
          cacheControl: 'no-store',
        });
        expect(res.headers['surrogate-key']).toBeUndefined();
      }
    });

    it('HEAD and a 304 to If-None-Match repeat the public headers (RFC 9110 §15.4.5)', async () => {
      const path = `${BLOGS}/${blog.id}`;
      const head = await t.http.head(path).expect(200);
      const { etag } = (await t.http.get(path)).headers;
      const notModified = await t.http.get(path).set('If-None-Match', etag).expect(304);

      for (const res of [head, notModified]) {
        expect(res.headers['cache-control']).toBe(PUBLIC);
        expect(res.headers['surrogate-key']).toBe(`blog-${blog.id}`);
      }
    });

    it.each([
      ['a missing blog', () => t.http.get(`${BLOGS}/999999`), 404],
      ['an unknown slug', () => t.http.get(`${BLOGS}/slug/no-such-slug`), 404],
      ['a bad query', () => t.http.get(`${BLOGS}?limit=0`), 400],
      ['an unknown path', () => t.http.get('/api/v1/likes'), 404],
      [
        'a write',
        () =>
          t.http
            .post(BLOGS)
            .set('Authorization', bearer(t.token('bob')))
            .send(BODY),
        201,
      ],
      ['a write refused', () => t.http.post(BLOGS).send(BODY), 401],
      [
        'the change feed',
        () => t.http.get('/api/v1/changes').set('Authorization', bearer(t.token('x', { scope: 'events:read' }))),
        200,
      ],
      ['liveness', () => t.http.get('/health/live'), 200],
      ['metrics', () => t.http.get('/metrics'), 200],
      ['the OpenAPI document', () => t.http.get('/api/docs-json'), 200],
    ])('%s is no-store, never public', async (_name, send, status) => {
      const res = await send();

      expect(res.status).toBe(status);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['surrogate-key']).toBeUndefined();
    });
  });

  describe.each([
    ['READS_REQUIRE_AUTH=true: nothing is public', { READS_REQUIRE_AUTH: 'true' }, 'no-store', undefined],
    ['CACHE_SHARED_MAX_AGE=0: public reads say no-cache', { CACHE_SHARED_MAX_AGE: '0' }, 'no-cache', undefined],
    ['CACHE_MAX_AGE=60', { CACHE_MAX_AGE: '60' }, 'public, max-age=60, s-maxage=86400', 'blogs'],
  ])('%s', (_name, env, cacheControl, keys) => {
    const t = useTestApp(env);

    it('the list of blogs, with a token when reads need one', async () => {
      const read = t.http.get(BLOGS);
      const res = await ('READS_REQUIRE_AUTH' in env ? read.set('Authorization', bearer(t.token('a'))) : read);

      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe(cacheControl);
      expect(res.headers['surrogate-key']).toBe(keys);
    });
  });

  describe('purges (CACHE_PURGE_URLS)', () => {
    const t = useTestApp(() => ({
      JOBS_ENABLED: 'true',
      CACHE_PURGE_URLS: receiver.url,
      RATE_LIMIT_ENABLED: 'false',
    }));
    const owner = (): string => bearer(t.token('alice'));

    /** Runs `write`, then waits for the purges it causes: those that bring `key`. */
    async function purgesOf(write: () => Promise<unknown>, key: string): Promise<string[]> {
      const from = receiver.received.length;
      await write();
      await eventually(() => purgedKeys(receiver, from).includes(key), `a purge of ${key}`, 20_000);
      return purgedKeys(receiver, from);
    }

    beforeEach(() => receiver.answerWith(200));

    it('each event purges exactly its keys, with PURGE to the base URL', async () => {
      let id = 0;
      const created = await purgesOf(async () => {
        id = ((await t.http.post(BLOGS).set('Authorization', owner()).send(BODY).expect(201)).body as { id: number })
          .id;
      }, 'blogs');
      expect(created).toEqual([`blog-${id}`, 'blogs', `comments-${id}`]);
      expect(receiver.received.at(-1)?.headers['user-agent']).toBe('blog-service-purge');

      const patch = () =>
        t.http.patch(`${BLOGS}/${id}`).set('Authorization', owner()).send({ title: 'Changed' }).expect(200);
      expect(await purgesOf(patch, `blog-${id}`)).toEqual([`blog-${id}`, 'blogs', `comments-${id}`]);

      let commentId = 0;
      const comment = async () => {
        const res = await t.http
          .post(`${BLOGS}/${id}/comments`)
          .set('Authorization', owner())
          .send({ author: 'A', body: 'B' })
          .expect(201);
        commentId = (res.body as { id: number }).id;
      };
      expect(await purgesOf(comment, `comments-${id}`)).toEqual([`comment-${commentId}`, `comments-${id}`]);
      const uncomment = () => t.http.delete(`${COMMENTS}/${commentId}`).set('Authorization', owner()).expect(204);
      expect(await purgesOf(uncomment, `comment-${commentId}`)).toEqual([`comment-${commentId}`, `comments-${id}`]);

      const remove = () => t.http.delete(`${BLOGS}/${id}`).set('Authorization', owner()).expect(204);
      expect(await purgesOf(remove, `blog-${id}`)).toEqual([`blog-${id}`, 'blogs', `comments-${id}`]);
    });

    it('a scheduled blog is purged when its instant comes (blog.published)', async () => {
      const publishedAt = new Date(Date.now() + 3_000).toISOString();
      let id = 0;
      await purgesOf(async () => {
        const res = await t.http
          .post(BLOGS)
          .set('Authorization', owner())
          .send({ ...BODY, publishedAt })
          .expect(201);
        id = (res.body as { id: number }).id;
      }, 'blogs');
      const from = receiver.received.length;

      await eventually(() => purgedKeys(receiver, from).includes(`blog-${id}`), 'the purge at publication', 20_000);
      expect(receiver.received[from].at).toBeGreaterThanOrEqual(Date.parse(publishedAt));
      expect(purgedKeys(receiver, from)).toEqual([`blog-${id}`, 'blogs', `comments-${id}`]);
    });

    it('a refused purge is retried until the cache takes it, and the metrics tell', async () => {
      const refusals = receiver.received.length + 2;
      receiver.answerWith((index) => (index < refusals ? 503 : 200));
      const before = metric((await t.http.get('/metrics')).text, 'cache_purges_total{outcome="failed"}');

      const res = await t.http.post(BLOGS).set('Authorization', owner()).send(BODY).expect(201);
      const id = (res.body as { id: number }).id;

      await eventually(() => receiver.received.length > refusals, 'a purge after two refusals', 30_000);
      expect(purgedKeys(receiver, refusals)).toEqual(expect.arrayContaining([`blog-${id}`]));
      const text = (await t.http.get('/metrics')).text;
      expect(metric(text, 'cache_purges_total{outcome="failed"}') - before).toBe(2);
      expect(metric(text, 'cache_purges_total{outcome="sent"}')).toBeGreaterThan(0);
      await eventually(
        async () => metric((await t.http.get('/metrics')).text, 'cache_purges_pending') === 0,
        'no purge pending',
        20_000,
      );
    });
  });

  // Replicas share a server; the embedded database belongs to one process.
  (process.env[E2E_ENV.serverUrl] ? describe : describe.skip)('two replicas of the service on one database', () => {
    let apps: TestApp[] = [];

    afterAll(async () => {
      await apps[1]?.close({ keepDatabase: true });
      await apps[0]?.close();
    });

    it('purge each event once per cache, not once per replica', async () => {
      const env = { JOBS_ENABLED: 'true', CACHE_PURGE_URLS: receiver.url, RATE_LIMIT_ENABLED: 'false' };
      receiver.answerWith(200);
      const first = await createTestApp(env);
      apps = [first, await createTestApp(env, first.database)];
      const from = receiver.received.length;
      const ids: number[] = [];
      for (let n = 0; n < 10; n += 1) {
        const app = apps[n % 2];
        const res = await app.http
          .post(BLOGS)
          .set('Authorization', bearer(app.token('alice')))
          .send(BODY);
        ids.push((res.body as { id: number }).id);
      }

      await eventually(
        () => ids.every((id) => purgedKeys(receiver, from).includes(`blog-${id}`)),
        'the purges of ten blogs',
        20_000,
      );
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const keys = purgedKeys(receiver, from).filter((key) => key.startsWith('blog-'));
      expect(keys).toEqual(ids.map((id) => `blog-${id}`).sort());
    });
  });
});

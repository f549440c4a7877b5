import type { Response, Test } from 'supertest';
import { bearer, BLOGS, BODY, createBlog, expectJsonError, sleep } from './support/blog-api';
import { TcpProxy } from './support/tcp-proxy';
import { TestApp, useTestApp } from './support/test-app';
import { createTestDatabase, E2E_ENV, TestDatabase } from './support/test-database';
import { problemMembers } from './support/problem';

// Every error is a problem details object (RFC 9457) with the 1.x `statusCode`, `error`, `message`; a 500 never shows a
// stack trace, SQL or a driver message; an unreachable database is answered 503 within 5 s.

/** The service's public base URL in these tests. */
const PUBLIC_URL = 'https://api.blog.example';

/** Patterns of internals that must never reach a client (stack frames, SQL, driver messages). */
const INTERNALS: readonly RegExp[] = [
  /\bat .+[:(]\d+/, // stack frame
  /\.(ts|js):\d+/,
  /node_modules/,
  /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|RETURNING)\b/,
  /relation|column|syntax error|violates/i,
  /QueryFailedError|TypeORM|DriverError|pglite/i,
  /ECONN|ETIMEDOUT|EPIPE|ENOTFOUND/,
  /timeout exceeded|Connection terminated|connection error|Connection ended/i,
  /postgres|5432|127\.0\.0\.1|localhost/i,
  /blogs_renamed/,
];

/** The body is exactly the problem details members and shows none of the internals. */
function expectNoInternals(res: Response): void {
  expect(Object.keys(res.body).sort()).toEqual(problemMembers(res.body));
  const text = JSON.stringify(res.body);
  for (const pattern of INTERNALS) expect(text).not.toMatch(pattern);
}

describe('error responses', () => {
  // A public URL of no host the patterns below look for: the problem types name it.
  const t = useTestApp({ PUBLIC_URL });
  let auth: string;
  let blogId: number;

  beforeAll(async () => {
    auth = bearer(t.token('alice'));
    blogId = (await createBlog(t, 'alice')).body.id;
  });

  describe('paths the service does not serve answer 404 with the JSON error body', () => {
    it.each([
      ['GET', '/nope'],
      ['GET', '/api/v2/blogs'],
      ['GET', '/api/v2/blogs/1'],
      ['GET', '/api/v1/blog'],
      ['DELETE', '/api/v1/blogs'],
      ['PATCH', '/api/v1/blogs'],
      ['DELETE', '/api/v2/blogs/1'],
      ['PATCH', '/api/v1/blogs/1/comments'],
      ['DELETE', '/api/blogs'],
    ])('%s %s → 404', async (method, path) => {
      const req = (t.http as unknown as Record<string, (p: string) => Test>)
        [method.toLowerCase()](path)
        .set('Authorization', auth);
      const res = await req;
      expectJsonError(res, 404);
      expectNoInternals(res);
    });
  });

  describe('every error response is a problem with { statusCode, error, message }', () => {
    const cases: readonly [string, number, (tt: TestApp) => Test][] = [
      ['GET read with a malformed id', 400, (tt) => tt.http.get(`${BLOGS}/abc`)],
      ['GET read with a leading-zero id', 400, (tt) => tt.http.get(`${BLOGS}/01`)],
      ['GET read with an id above int4', 400, (tt) => tt.http.get(`${BLOGS}/2147483648`)],
      ['GET list with limit=0', 400, (tt) => tt.http.get(`${BLOGS}?limit=0`)],
      ['GET list with an unknown query parameter', 400, (tt) => tt.http.get(`${BLOGS}?order=title`)],
      [
        'POST with malformed JSON',
        400,
        (tt) =>
          tt.http.post(BLOGS).set('Authorization', auth).set('Content-Type', 'application/json').send('{"title": '),
      ],
      ['POST with a JSON array', 400, (tt) => tt.http.post(BLOGS).set('Authorization', auth).send([BODY])],
      [
        'POST with a missing field',
        400,
        (tt) => tt.http.post(BLOGS).set('Authorization', auth).send({ title: 't', content: 'c' }),
      ],
      [
        'POST with a number as title',
        400,
        (tt) =>
          tt.http
            .post(BLOGS)
            .set('Authorization', auth)
            .send({ ...BODY, title: 5 }),
      ],
      [
        'POST with an extra property',
        400,
        (tt) =>
          tt.http
            .post(BLOGS)
            .set('Authorization', auth)
            .send({ ...BODY, id: 3 }),
      ],
      ['POST without a token', 401, (tt) => tt.http.post(BLOGS).send(BODY)],
      [
        'PUT by another sub',
        403,
        (tt) =>
          tt.http
            .put(`${BLOGS}/${blogId}`)
            .set('Authorization', bearer(tt.token('bob')))
            .send(BODY),
      ],
      ['GET a blog that does not exist', 404, (tt) => tt.http.get(`${BLOGS}/2147483647`)],
      [
        'PUT a blog that does not exist',
        404,
        (tt) => tt.http.put(`${BLOGS}/2147483647`).set('Authorization', auth).send(BODY),
      ],
      ['GET an unknown path', 404, (tt) => tt.http.get('/nope')],
      [
        'POST a body over 1 MiB',
        413,
        (tt) =>
          tt.http
            .post(BLOGS)
            .set('Authorization', auth)
            .send({ ...BODY, content: 'x'.repeat(1_048_577) }),
      ],
      [
        'POST as text/plain',
        415,
        (tt) => tt.http.post(BLOGS).set('Authorization', auth).set('Content-Type', 'text/plain').send('hello'),
      ],
      ['POST with no content type', 415, (tt) => tt.http.post(BLOGS).set('Authorization', auth)],
      [
        'PUT as application/x-www-form-urlencoded',
        415,
        (tt) => tt.http.put(`${BLOGS}/${blogId}`).set('Authorization', auth).type('form').send(BODY),
      ],
    ];

    it.each(cases)('%s → %i', async (_name, status, send) => {
      const res = await send(t);
      expectJsonError(res, status);
      expectNoInternals(res);
    });
  });

  describe('a 500 never leaks internals', () => {
    // Provoked safely: the blogs table of this test's own database is renamed for a moment, so
    // every query fails with an SQL error (relation does not exist) that is not a client error.
    beforeAll(async () => {
      await t.dataSource.query('ALTER TABLE blogs RENAME TO blogs_renamed');
    });

    afterAll(async () => {
      await t.dataSource.query('ALTER TABLE blogs_renamed RENAME TO blogs');
    });

    it.each([
      ['GET list', (tt: TestApp) => tt.http.get(BLOGS)],
      ['GET read', (tt: TestApp) => tt.http.get(`${BLOGS}/1`)],
      ['POST create', (tt: TestApp) => tt.http.post(BLOGS).set('Authorization', auth).send(BODY)],
      ['PUT update', (tt: TestApp) => tt.http.put(`${BLOGS}/1`).set('Authorization', auth).send(BODY)],
    ])('%s on a failing query answers 500 with the generic JSON error body only', async (_name, send) => {
      const res = await send(t);
      expectJsonError(res, 500);
      expectNoInternals(res);
    });
  });

  it('the service works again once the table is back', async () => {
    await t.http.get(`${BLOGS}/${blogId}`).expect(200);
  });
});

const serverUrl = process.env[E2E_ENV.serverUrl];
// Embedded runs have no server to cut off.
const describeWithServer = serverUrl ? describe : describe.skip;

/** Sends `req` and reports its status and how long it took; a request that hangs reports 'timeout'. */
async function timed(req: Test): Promise<{ res?: Response; status: number | 'timeout'; ms: number }> {
  const started = Date.now();
  try {
    const res = await req.timeout(15_000);
    return { res, status: res.status, ms: Date.now() - started };
  } catch (error) {
    if ((error as { timeout?: unknown }).timeout !== undefined) return { status: 'timeout', ms: Date.now() - started };
    throw error;
  }
}

/** A 503: within 5 s, JSON error body, `Retry-After`, nothing internal. */
function expectUnavailable(result: { res?: Response; status: number | 'timeout'; ms: number }): void {
  expect({ status: result.status, withinFiveSeconds: result.ms < 5_000 }).toEqual({
    status: 503,
    withinFiveSeconds: true,
  });
  const res = result.res as Response;
  expectJsonError(res, 503);
  expect(res.headers['retry-after']).toMatch(/^\d+$/);
  expectNoInternals(res);
}

describeWithServer('database unavailable (PostgreSQL server behind a TCP proxy)', () => {
  let proxy: TcpProxy;
  let database: TestDatabase;
  let auth: string;
  let blogId: number;

  beforeAll(async () => {
    const server = new URL(serverUrl as string);
    proxy = new TcpProxy({ host: server.hostname || '127.0.0.1', port: Number(server.port || 5432) });
    await proxy.listen();
    database = await createTestDatabase();
  });

  // Before the app closes (afterAll hooks run in order): reconnect it, so it can close cleanly.
  afterAll(async () => {
    proxy.mode = 'forward';
    proxy.destroyAll();
    if (!proxy.listening) await proxy.listen().catch(() => undefined);
  });

  const t = useTestApp(
    () => {
      const proxied = new URL(database.env.DATABASE_URL);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      return { DATABASE_URL: proxied.toString(), PUBLIC_URL };
    },
    { database: () => database },
  );

  beforeAll(async () => {
    auth = bearer(t.token('alice'));
    blogId = (await createBlog(t, 'alice')).body.id;
  });

  afterAll(async () => {
    await database?.drop();
    await proxy.refuse();
  });

  describe('the server refuses connections (proxy closed, every socket destroyed)', () => {
    beforeAll(async () => {
      await proxy.refuse();
    });

    it.each([
      ['GET /api/v1/blogs/:id', () => t.http.get(`${BLOGS}/${blogId}`)],
      ['GET /api/v1/blogs', () => t.http.get(BLOGS)],
      ['POST /api/v1/blogs', () => t.http.post(BLOGS).set('Authorization', auth).send(BODY)],
      ['PUT /api/v1/blogs/:id', () => t.http.put(`${BLOGS}/${blogId}`).set('Authorization', auth).send(BODY)],
    ])('%s answers 503 within 5 s with the JSON error body and Retry-After', async (_name, send) => {
      expectUnavailable(await timed(send()));
    });
  });

  describe('the server is a black hole (connection accepted, never answered)', () => {
    beforeAll(async () => {
      proxy.mode = 'blackhole';
      await proxy.listen();
    });

    it.each([
      ['GET /api/v1/blogs/:id', () => t.http.get(`${BLOGS}/${blogId}`)],
      ['POST /api/v1/blogs', () => t.http.post(BLOGS).set('Authorization', auth).send(BODY)],
    ])('%s answers 503 within 5 s', async (_name, send) => {
      expectUnavailable(await timed(send()));
    });
  });

  describe('the server comes back', () => {
    beforeAll(() => {
      proxy.destroyAll();
      proxy.mode = 'forward';
    });

    it('the service recovers by itself, without a restart: a read succeeds again within a few seconds', async () => {
      const deadline = Date.now() + 10_000;
      let last: number | 'timeout' = 'timeout';
      while (Date.now() < deadline) {
        last = (await timed(t.http.get(`${BLOGS}/${blogId}`))).status;
        if (last === 200) break;
        await sleep(250);
      }
      expect(last).toBe(200);
      await t.http.post(BLOGS).set('Authorization', auth).send(BODY).expect(201);
      await t.http.get(BLOGS).expect(200);
    });
  });

  describe('established connections go silent (network partition after connecting)', () => {
    beforeAll(async () => {
      // a successful request first, so the pool holds live connections through the proxy
      await t.http.get(`${BLOGS}/${blogId}`).expect(200);
      proxy.mode = 'blackhole';
      proxy.freeze();
    });

    afterAll(() => {
      proxy.destroyAll();
      proxy.mode = 'forward';
    });

    it('GET /api/v1/blogs/:id answers 503 within 5 s rather than hanging', async () => {
      expectUnavailable(await timed(t.http.get(`${BLOGS}/${blogId}`)));
    });
  });

  describe('the network heals for new connections while the old ones stay dead', () => {
    beforeAll(async () => {
      // Several pooled connections, all of which then go silent for good.
      await Promise.all(Array.from({ length: 5 }, () => t.http.get(`${BLOGS}/${blogId}`).expect(200)));
      proxy.freeze();
      proxy.mode = 'forward';
    });

    afterAll(() => {
      proxy.destroyAll();
    });

    it('each request on a dead connection answers 503 within 5 s, and that connection is not lent again', async () => {
      const burst = await Promise.all(Array.from({ length: 10 }, () => timed(t.http.get(`${BLOGS}/${blogId}`))));
      // The pool's five idle connections are dead, so some requests of the burst must meet one.
      const failed = burst.filter((result) => result.status !== 200);
      expect(failed.length).toBeGreaterThan(0);
      failed.forEach(expectUnavailable);
      // Every dead connection was dropped by the burst: from here on, every request succeeds.
      const after: (number | 'timeout')[] = [];
      for (let i = 0; i < 20; i += 1) after.push((await timed(t.http.get(`${BLOGS}/${blogId}`))).status);
      expect(after).toEqual(Array.from({ length: 20 }, () => 200));
    });
  });
});

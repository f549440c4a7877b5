import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import Redis from 'ioredis';
import type { Response } from 'supertest';
import { SERVER_TIMEOUTS } from '../src/app.setup';
import { BLOGS, BODY, bearer, expectJsonError } from './support/blog-api';
import { OpenApiContract } from './support/openapi-contract';
import { createTestApp, TestApp, useTestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';

// Reads limited per client address, writes per token `sub`, 429 with Retry-After and the JSON
// error body; probes and /metrics never limited; TRUST_PROXY decides whether
// X-Forwarded-For names the client; counters shared through Redis by several replicas; helmet
// headers; CORS closed unless CORS_ORIGINS lists an origin; deliberate HTTP server timeouts.

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A 429: the JSON error body, with a Retry-After of 1..window seconds. */
function expectTooMany(res: Response, windowSeconds = 60): void {
  expectJsonError(res, 429);
  expect(res.body.message).toMatch(/^Too many requests; retry after \d+ s$/);
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

/** Every 429 of a blog operation must be one the OpenAPI document describes (body and Retry-After). */
const contract = new OpenApiContract();

/** A fresh client address, for a fresh read budget on an app that trusts X-Forwarded-For. */
let nextHost = 1;
const freshIp = (): string => `198.51.100.${nextHost++}`;

describe('limits, trusting X-Forwarded-For (TRUST_PROXY=true): 3 reads per address, 2 writes per sub', () => {
  const t = useTestApp({
    RATE_LIMIT_READS: '3',
    RATE_LIMIT_WRITES: '2',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    TRUST_PROXY: 'true',
  });

  it('the 4th read of one address within the window is 429 with Retry-After; list and read share the budget', async () => {
    const ip = freshIp();
    const created = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('reader-setup')))
      .send(BODY)
      .expect(201);
    await t.http.get(BLOGS).set('X-Forwarded-For', ip).expect(200);
    await t.http.get(`${BLOGS}/${created.body.id}`).set('X-Forwarded-For', ip).expect(200);
    await t.http.get('/api/blogs').set('X-Forwarded-For', ip).expect(200);

    const readOne = await t.http.get(`${BLOGS}/${created.body.id}`).set('X-Forwarded-For', ip);
    expectTooMany(readOne);
    contract.expectDocumented('get', '/api/v1/blogs/{id}', readOne);
    const list = await t.http.get(BLOGS).set('X-Forwarded-For', ip);
    expectTooMany(list);
    contract.expectDocumented('get', '/api/v1/blogs', list);
    // another address is not affected
    await t.http.get(BLOGS).set('X-Forwarded-For', freshIp()).expect(200);
  });

  it('a limited address still gets /health/live and /health/ready, and /metrics is never 429', async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i += 1) await t.http.get(BLOGS).set('X-Forwarded-For', ip).expect(200);
    expectTooMany(await t.http.get(BLOGS).set('X-Forwarded-For', ip));

    for (let i = 0; i < 5; i += 1) {
      await t.http.get('/health/live').set('X-Forwarded-For', ip).expect(200);
      await t.http.get('/health/ready').set('X-Forwarded-For', ip).expect(200);
      expect((await t.http.get('/metrics').set('X-Forwarded-For', ip)).status).not.toBe(429);
    }
  });

  it("writes (POST, PUT, PATCH, DELETE) are limited per token sub, not per address: alice's 3rd write is 429 and changes nothing, bob (same address) still writes", async () => {
    const ip = freshIp();
    const alice = bearer(t.token(`alice-${randomUUID()}`));
    const first = await t.http
      .post(BLOGS)
      .set('Authorization', alice)
      .set('X-Forwarded-For', ip)
      .send(BODY)
      .expect(201);
    await t.http
      .put(`${BLOGS}/${first.body.id}`)
      .set('Authorization', alice)
      .set('X-Forwarded-For', ip)
      .send(BODY)
      .expect(200);
    const [{ count: before }] = await t.dataSource.query('SELECT count(*)::int AS count FROM blogs');

    const limited = await t.http
      .post(BLOGS)
      .set('Authorization', alice)
      .set('X-Forwarded-For', freshIp())
      .send({ ...BODY, title: 'over the limit' });
    expectTooMany(limited);
    contract.expectDocumented('post', '/api/v1/blogs', limited);
    const limitedUpdate = await t.http
      .put(`${BLOGS}/${first.body.id}`)
      .set('Authorization', alice)
      .send({ ...BODY, title: 'over the limit' });
    expectTooMany(limitedUpdate);
    contract.expectDocumented('put', '/api/v1/blogs/{id}', limitedUpdate);
    const limitedPatch = await t.http
      .patch(`${BLOGS}/${first.body.id}`)
      .set('Authorization', alice)
      .set('Content-Type', 'application/merge-patch+json')
      .send('{"title":"over the limit"}');
    expectTooMany(limitedPatch);
    contract.expectDocumented('patch', '/api/v1/blogs/{id}', limitedPatch);
    const limitedDelete = await t.http.delete(`${BLOGS}/${first.body.id}`).set('Authorization', alice);
    expectTooMany(limitedDelete);
    contract.expectDocumented('delete', '/api/v1/blogs/{id}', limitedDelete);

    const [{ count: after }] = await t.dataSource.query('SELECT count(*)::int AS count FROM blogs');
    expect(after).toBe(before);
    const stored = await t.http.get(`${BLOGS}/${first.body.id}`).set('X-Forwarded-For', freshIp()).expect(200);
    expect(stored.body.title).toBe(BODY.title);

    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token(`bob-${randomUUID()}`)))
      .set('X-Forwarded-For', ip)
      .send(BODY)
      .expect(201);
    // alice's reads spend the address's read budget, not her write budget
    await t.http.get(BLOGS).set('Authorization', alice).set('X-Forwarded-For', ip).expect(200);
  });

  it('a write without a valid token is 401 (the token is checked before the budget)', async () => {
    const res = await t.http.post(BLOGS).send(BODY);
    expectJsonError(res, 401);
  });

  it('security headers (helmet) are on every response, errors included; X-Powered-By is not', async () => {
    for (const res of [
      await t.http.get(BLOGS).set('X-Forwarded-For', freshIp()),
      await t.http.get('/nope'),
      await t.http.post(BLOGS).send(BODY),
    ]) {
      expect(res.headers).toMatchObject({
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'SAMEORIGIN',
        'strict-transport-security': expect.stringMatching(/^max-age=\d+/),
        'content-security-policy': expect.stringContaining("default-src 'self'"),
        'cross-origin-resource-policy': 'same-origin',
        'referrer-policy': 'no-referrer',
      });
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('CORS is closed by default: no Access-Control-* header for any origin, preflight not answered', async () => {
    const res = await t.http
      .get(BLOGS)
      .set('Origin', 'https://evil.example')
      .set('X-Forwarded-For', freshIp())
      .expect(200);
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);

    const preflight = await t.http
      .options(BLOGS)
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('X-Forwarded-For', freshIp());
    expect(Object.keys(preflight.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('the HTTP server has the deliberate timeouts: headers 15 s, request 30 s, keep-alive 65 s', () => {
    const server = t.app.getHttpServer() as Server;
    expect(SERVER_TIMEOUTS).toEqual({ headersMs: 15_000, requestMs: 30_000, keepAliveMs: 65_000 });
    expect({
      headers: server.headersTimeout,
      request: server.requestTimeout,
      keepAlive: server.keepAliveTimeout,
    }).toEqual({
      headers: 15_000,
      request: 30_000,
      keepAlive: 65_000,
    });
  });
});

describe('TRUST_PROXY=false (the default), CORS_ORIGINS set, limits off', () => {
  let strict: TestApp;

  afterEach(async () => {
    await strict?.close();
  });

  it('X-Forwarded-For is ignored: changing it does not buy a new read budget', async () => {
    strict = await createTestApp({ RATE_LIMIT_READS: '2', CORS_ORIGINS: 'https://app.example, http://localhost:5173' });
    await strict.http.get(BLOGS).set('X-Forwarded-For', '203.0.113.1').expect(200);
    await strict.http.get(BLOGS).set('X-Forwarded-For', '203.0.113.2').expect(200);
    expectTooMany(await strict.http.get(BLOGS).set('X-Forwarded-For', '203.0.113.3'));

    // CORS_ORIGINS opens exactly the listed origins
    const allowed = await strict.http
      .options(BLOGS)
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'DELETE');
    expect(allowed.status).toBe(204);
    expect(allowed.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example',
      'access-control-allow-methods': 'GET,HEAD,POST,PUT,PATCH,DELETE',
      'access-control-allow-headers':
        'Authorization,Content-Type,Idempotency-Key,If-Match,If-Modified-Since,If-None-Match,X-Request-Id',
      'access-control-max-age': '600',
    });
    const simple = await strict.http.get('/health/live').set('Origin', 'http://localhost:5173').expect(200);
    expect(simple.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    expect(simple.headers['access-control-expose-headers']).toContain('X-Request-Id');
    expect(simple.headers['access-control-expose-headers']).toContain('Link');
    expect(simple.headers['access-control-expose-headers']).toContain('Accept-Patch');
    const other = await strict.http.get('/health/live').set('Origin', 'https://evil.example').expect(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('RATE_LIMIT_ENABLED=false turns the limits off', async () => {
    strict = await createTestApp({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_READS: '1', RATE_LIMIT_WRITES: '1' });
    const auth = bearer(strict.token('no-limits'));
    for (let i = 0; i < 5; i += 1) await strict.http.post(BLOGS).set('Authorization', auth).send(BODY).expect(201);
    const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await strict.http.get(BLOGS)).status));
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});

describe('Redis storage (REDIS_URL): replicas share one budget', () => {
  const prefix = `blog-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
  let redis: Redis;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    await redis.ping();
  });

  afterAll(async () => {
    for (const app of apps) await app.close();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('two app instances with the same REDIS_URL and prefix spend one budget of 4 reads and 2 writes', async () => {
    const env = { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix, RATE_LIMIT_READS: '4', RATE_LIMIT_WRITES: '2' };
    apps.push(await createTestApp(env, await createTestDatabase()));
    apps.push(await createTestApp(env, await createTestDatabase()));
    const [a, b] = apps;

    await a.http.get(BLOGS).expect(200);
    await b.http.get(BLOGS).expect(200);
    await a.http.get(BLOGS).expect(200);
    await b.http.get(BLOGS).expect(200);
    expectTooMany(await a.http.get(BLOGS));
    expectTooMany(await b.http.get(BLOGS));

    const sub = `carol-${randomUUID()}`;
    await a.http
      .post(BLOGS)
      .set('Authorization', bearer(a.token(sub)))
      .send(BODY)
      .expect(201);
    await b.http
      .post(BLOGS)
      .set('Authorization', bearer(b.token(sub)))
      .send(BODY)
      .expect(201);
    expectTooMany(
      await a.http
        .post(BLOGS)
        .set('Authorization', bearer(a.token(sub)))
        .send(BODY),
    );
    expectTooMany(
      await b.http
        .post(BLOGS)
        .set('Authorization', bearer(b.token(sub)))
        .send(BODY),
    );

    // the counters are in Redis, under the configured prefix
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.some((k) => k.includes('reads:ip:'))).toBe(true);
    expect(keys.some((k) => k.includes(`writes:sub:${sub}`))).toBe(true);
  });

  it('when Redis cannot be reached, requests are served (not limited, no 500) within a bounded time', async () => {
    const port = await closedPort();
    const t = await createTestApp({ REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_READS: '1' });
    apps.push(t);
    const started = Date.now();
    for (let i = 0; i < 3; i += 1) await t.http.get(BLOGS).expect(200);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

/** A local TCP port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

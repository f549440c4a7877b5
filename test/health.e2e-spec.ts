import { randomUUID } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { ThrottlerStorage } from '@nestjs/throttler';
import { BLOGS, sleep } from './support/blog-api';
import { OpenApiContract } from './support/openapi-contract';
import { TcpProxy } from './support/tcp-proxy';
import { useTestApp } from './support/test-app';
import { problemBody } from './support/problem';

const REDIS_URL = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

describe('health probes (@nestjs/terminus)', () => {
  const contract = new OpenApiContract();
  // REDIS_URL removed: this app's readiness must not depend on the caller's environment
  const t = useTestApp({ READS_REQUIRE_AUTH: 'true', REDIS_URL: undefined });

  it('GET /health/live → 200 {status: ok}, no token, even when reads require one', async () => {
    const res = await t.http.get('/health/live').expect(200);

    expect(res.body).toMatchObject({ status: 'ok' });
    contract.expectDocumented('get', '/health/live', res);
  });

  it('GET /health/ready → 200 with the database up', async () => {
    const res = await t.http.get('/health/ready').expect(200);

    expect(res.body).toMatchObject({ status: 'ok', details: { database: { status: 'up' } } });
    // no REDIS_URL: Redis is not a dependency, so it is not checked
    expect(Object.keys(res.body.details)).toEqual(['database']);
    contract.expectDocumented('get', '/health/ready', res);
  });

  it('GET /health/ready → 503 naming the database while it cannot be reached; live stays 200; ready again after', async () => {
    await t.dataSource.destroy();
    try {
      const res = await t.http.get('/health/ready').expect(503);
      expect(res.body).toEqual(problemBody(503, 'Not ready: database'));
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      contract.expectDocumented('get', '/health/ready', res);
      await t.http.get('/health/live').expect(200);
    } finally {
      await t.dataSource.initialize();
    }
    await t.http.get('/health/ready').expect(200);
  });
});

describe('readiness with the rate-limit counters in Redis (REDIS_URL, Redis behind a TCP proxy)', () => {
  const contract = new OpenApiContract();
  const prefix = `blog-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
  let proxy: TcpProxy;

  beforeAll(async () => {
    proxy = new TcpProxy({ host: REDIS_URL.hostname, port: Number(REDIS_URL.port || 6379) });
    await proxy.listen();
  });

  const t = useTestApp(() => {
    const proxied = new URL(REDIS_URL);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    return { REDIS_URL: proxied.toString(), RATE_LIMIT_REDIS_PREFIX: prefix };
  });

  afterAll(async () => {
    await proxy?.refuse();
  });

  /** GET /health/ready until it answers `status`, for at most `ms`. */
  async function readyBecomes(status: number, ms: number): Promise<number> {
    const deadline = Date.now() + ms;
    let last = 0;
    while (Date.now() < deadline) {
      last = (await t.http.get('/health/ready')).status;
      if (last === status) return last;
      await sleep(100);
    }
    return last;
  }

  it('GET /health/ready → 200 with database and redis up', async () => {
    // a PING has 0.5 s, which a saturated CI machine can miss once
    expect(await readyBecomes(200, 10_000)).toBe(200);
    const res = await t.http.get('/health/ready').expect(200);

    expect(res.body).toMatchObject({
      status: 'ok',
      details: { database: { status: 'up' }, redis: { status: 'up' } },
    });
    contract.expectDocumented('get', '/health/ready', res);
  });

  it('Redis cut off → 503 "Not ready: redis" within the bound, live stays 200, blogs still served; back → 200 again', async () => {
    await proxy.refuse();
    try {
      const started = Date.now();
      const res = await t.http.get('/health/ready').expect(503);
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(res.body).toEqual(problemBody(503, 'Not ready: redis'));
      expect(res.headers['retry-after']).toMatch(/^\d+$/);
      contract.expectDocumented('get', '/health/ready', res);
      await t.http.get('/health/live').expect(200);
      // the limits fail open: the resource itself is still served
      await t.http.get(BLOGS).expect(200);
    } finally {
      await proxy.listen();
    }
    // ioredis reconnects on its own (back-off ≤ 2 s); readiness follows without a restart
    expect(await readyBecomes(200, 10_000)).toBe(200);
  });
});

describe('readiness with REDIS_URL set but the rate limits off (RATE_LIMIT_ENABLED=false)', () => {
  const t = useTestApp({ REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_ENABLED: 'false' });

  it('Redis is not used, so it is not checked: 200 with the database alone, even with Redis unreachable', async () => {
    const res = await t.http.get('/health/ready').expect(200);
    expect(Object.keys(res.body.details)).toEqual(['database']);
  });
});

describe('readiness with the rate-limit counters in a Redis that accepts connections and never answers', () => {
  let proxy: TcpProxy;

  beforeAll(async () => {
    proxy = new TcpProxy({ host: REDIS_URL.hostname, port: Number(REDIS_URL.port || 6379) });
    proxy.mode = 'blackhole';
    await proxy.listen();
  });

  const t = useTestApp(() => ({ REDIS_URL: `redis://127.0.0.1:${proxy.port}` }));

  afterAll(async () => {
    await proxy?.refuse();
  });

  it('its errors ("Command timed out") reach the service\'s listener, never ioredis\'s "Unhandled error event"; 503', async () => {
    const printed = jest.spyOn(console, 'error');
    const { redis } = t.app.get<{ redis: EventEmitter }>(ThrottlerStorage);
    const emitted = jest.spyOn(redis, 'emit');
    const unhandled = (): boolean =>
      printed.mock.calls.some(([text]) => String(text).includes('Unhandled error event'));
    const errors = (): unknown[] =>
      emitted.mock.calls.filter(([event]) => event === 'error').map(([, error]) => error as unknown);
    try {
      while (errors().length === 0 && !unhandled()) await sleep(100);

      expect(unhandled()).toBe(false);
      expect(errors()[0]).toMatchObject({ message: 'Command timed out' });
      const res = await t.http.get('/health/ready').expect(503);
      expect(res.body).toMatchObject({ message: 'Not ready: redis' });
    } finally {
      printed.mockRestore();
      emitted.mockRestore();
    }
  });
});

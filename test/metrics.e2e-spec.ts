import { SERVER_POOL_SIZE } from '../src/database/data-source-options';
import { bearer, BLOGS, BODY, sleep } from './support/blog-api';
import { useTestApp } from './support/test-app';

/** The value of the sample `name{labels}` in a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Readonly<Record<string, string>>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const close = line.lastIndexOf('}');
    const pairs = new Map(
      [...line.slice(name.length + 1, close).matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => pairs.get(k) === v) && pairs.size === Object.keys(labels).length) {
      return Number(line.slice(close + 1).trim());
    }
  }
  return undefined;
}

const count = (text: string, method: string, route: string, status: number): number =>
  sample(text, 'http_request_duration_seconds_count', { method, route, status_code: String(status) }) ?? 0;

describe('GET /metrics (Prometheus)', () => {
  const t = useTestApp({ READS_REQUIRE_AUTH: 'true' });

  const scrape = async (): Promise<string> => {
    const res = await t.http.get('/metrics').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain;.*version=0\.0\.4/);
    return res.text;
  };

  it('needs no token, even when reads require one, and is not under /api', async () => {
    await t.http.get(BLOGS).expect(401);
    await t.http.get('/metrics').expect(200);
    await t.http.get('/api/metrics').expect(404);
    await t.http.get('/api/v1/metrics').expect(404);
  });

  it('exposes the default process metrics', async () => {
    const text = await scrape();

    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });

  it('counts requests by method, route template and status, never by raw URL', async () => {
    const before = await scrape();
    const token = bearer(t.token('alice'));
    const created = await t.http.post(BLOGS).set('Authorization', token).send(BODY).expect(201);
    const id = (created.body as { id: number }).id;
    await t.http.get(`${BLOGS}/${id}`).set('Authorization', token).expect(200);
    await t.http.get(`/api/blogs/${id}`).set('Authorization', token).expect(200); // alias → same template
    await t.http.get(`${BLOGS}/2147483647`).set('Authorization', token).expect(404);
    await t.http.get(`${BLOGS}/${id}`).expect(401);
    await t.http.get('/no/such/path/raw-path-mark').expect(404);
    await t.http.get('/api/v1/nothing/raw-path-mark').expect(404); // under the /api prefix too
    await t.http
      .post(BLOGS)
      .set('Authorization', token)
      .set('Content-Type', 'application/json')
      .send('{"x":')
      .expect(400);

    const after = await scrape();
    const delta = (method: string, route: string, status: number): number =>
      count(after, method, route, status) - count(before, method, route, status);

    expect(delta('POST', '/api/v1/blogs', 201)).toBe(1);
    expect(delta('GET', '/api/v1/blogs/:id', 200)).toBe(2);
    expect(delta('GET', '/api/v1/blogs/:id', 404)).toBe(1);
    expect(delta('GET', '/api/v1/blogs/:id', 401)).toBe(1);
    expect(delta('GET', 'unmatched', 404)).toBe(2);
    expect(after).not.toContain('splat');
    // The body is read after routing and authentication, so malformed JSON has its route.
    expect(delta('POST', '/api/v1/blogs', 400)).toBe(1);
    // Not a number: a metric's value may hold any digits (an event-loop lag of 0.015123456 s did).
    expect(after).not.toContain('raw-path-mark');
    expect(after).not.toContain(`/api/v1/blogs/${id}"`);
    expect(after).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/v1\/blogs\/:id",status_code="200"\} \d+$/m,
    );
    const sum = sample(after, 'http_request_duration_seconds_sum', {
      method: 'POST',
      route: '/api/v1/blogs',
      status_code: '201',
    });
    expect(sum).toBeGreaterThan(0);
    expect(sum).toBeLessThan(60);
  });

  it('reports the database pool: in use, idle and waiting connections', async () => {
    const text = await scrape();
    const inUse = sample(text, 'db_pool_connections', { state: 'in_use' });
    const idle = sample(text, 'db_pool_connections', { state: 'idle' });
    const waiting = sample(text, 'db_pool_connections', { state: 'waiting' });

    // Between requests nothing holds a connection; the pool has at least one open (migrations ran).
    expect({ inUse, waiting }).toEqual({ inUse: 0, waiting: 0 });
    expect(idle).toBeGreaterThanOrEqual(1);
  });

  it('shows connections in use and callers waiting while the pool is exhausted', async () => {
    const poolSize = t.database.kind === 'embedded' ? 1 : SERVER_POOL_SIZE;
    const runners = await Promise.all(
      Array.from({ length: poolSize }, async () => {
        const runner = t.dataSource.createQueryRunner();
        await runner.connect();
        return runner;
      }),
    );
    const queued = t.dataSource.query('SELECT 1').then(
      () => 'done',
      (error: unknown) => error,
    );
    try {
      // The queued query waits as soon as it asks the pool: scrape until it shows (the test's timeout bounds it).
      let busy = await scrape();
      while (sample(busy, 'db_pool_connections', { state: 'waiting' }) === 0) {
        await sleep(20);
        busy = await scrape();
      }
      expect({
        inUse: sample(busy, 'db_pool_connections', { state: 'in_use' }),
        idle: sample(busy, 'db_pool_connections', { state: 'idle' }),
        waiting: sample(busy, 'db_pool_connections', { state: 'waiting' }),
      }).toEqual({ inUse: poolSize, idle: 0, waiting: 1 });
    } finally {
      await Promise.all(runners.map((runner) => runner.release()));
    }
    await expect(queued).resolves.toBe('done');
    const freed = await scrape();
    expect(sample(freed, 'db_pool_connections', { state: 'in_use' })).toBe(0);
    expect(sample(freed, 'db_pool_connections', { state: 'waiting' })).toBe(0);
  });
});

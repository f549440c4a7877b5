import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { mintToken } from '../src/auth/token-minter';
import { BLOGS, BlogBody, BlogListBody } from './support/blog-api';
import { freePort, ServiceProcess, useBuiltService } from './support/service-process';
import { TcpProxy } from './support/tcp-proxy';
import { createTestDatabase, E2E_ENV, TestDatabase } from './support/test-database';
import { startVarnish, VarnishServer } from './support/varnish-server';
import { eventually } from './support/webhook-receiver';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(180_000));

// Purges of a real Varnish when something fails, with the service as a real process (test/cache-purge.e2e-spec.ts
// covers the purges themselves): the cache down under writes, and the service killed between a write and its purge.
// Varnish keeps public answers for a day (s-maxage=86400), so a page that changes in it was purged.

const SECRET = 'cache-faults-e2e-secret-0123456789abcdefghijklm';
const AUTHORIZATION = `Bearer ${mintToken({ secret: SECRET }, { sub: 'alice', ttl: '1h' })}`;
const LIST = `${BLOGS}?limit=50`;

const built = useBuiltService();

/** A read through Varnish: its status, `X-Cache` and body. */
interface CachedRead<T> {
  readonly status: number;
  readonly cache: string | null;
  readonly body: T;
}

async function through<T>(varnish: VarnishServer, path: string): Promise<CachedRead<T>> {
  const response = await fetch(`${varnish.url}${path}`);
  return { status: response.status, cache: response.headers.get('x-cache'), body: (await response.json()) as T };
}

/** The title of the blog read through Varnish, with its status and `X-Cache`. */
async function blogThrough(varnish: VarnishServer, id: number): Promise<[number, string | null, string]> {
  const { status, cache, body } = await through<BlogBody>(varnish, `${BLOGS}/${id}`);
  return [status, cache, body.title];
}

/** The titles of the list read through Varnish, with its status and `X-Cache`. */
async function listThrough(varnish: VarnishServer): Promise<[number, string | null, string[]]> {
  const { status, cache, body } = await through<BlogListBody>(varnish, LIST);
  return [status, cache, body.data.map((blog) => blog.title).sort()];
}

/** The value of Prometheus metric `name` (with its labels) on the service's /metrics, 0 when absent. */
async function metric(service: ServiceProcess, name: string): Promise<number> {
  const { status, text } = await service.request({ path: '/metrics' });
  expect(status).toBe(200);
  return Number(new RegExp(`^${name.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

const FAILED = 'cache_purges_total{outcome="failed"}';
const SENT = 'cache_purges_total{outcome="sent"}';
const PENDING = 'cache_purges_pending';

/**
 * An HTTP proxy for purges in front of Varnish: forwards each request and records its `Surrogate-Key`; while armed it
 * holds every request (accepted, never answered nor forwarded), and a held one is never forwarded later.
 */
class HoldingProxy {
  armed = false;
  readonly held: string[] = [];
  readonly forwarded: string[] = [];
  private readonly server: Server;

  constructor(private readonly target: VarnishServer) {
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', () => done()));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const keys = String(req.headers['surrogate-key']);
    if (this.armed) {
      this.held.push(keys);
      return;
    }
    const answer = await fetch(`${this.target.url}${req.url}`, {
      method: req.method,
      headers: { 'Surrogate-Key': keys },
    }).catch(() => undefined);
    if (answer?.ok) this.forwarded.push(keys);
    res.writeHead(answer?.status ?? 502).end();
  }
}

/** Whether `keys` (a `Surrogate-Key` value) names blog `id`. */
const namesBlog = (keys: string, id: number): boolean => keys.split(' ').includes(`blog-${id}`);

(process.env[E2E_ENV.serverUrl] ? describe : describe.skip)('shared caches when something fails (e2e)', () => {
  let database: TestDatabase;
  let varnish: VarnishServer | undefined;
  const closers: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await varnish?.close();
    varnish = undefined;
    await database?.drop();
  });

  /** Varnish in front of a port the service will listen on. */
  async function varnishForService(): Promise<{ port: number; varnish: VarnishServer }> {
    const port = await freePort();
    varnish = await startVarnish({ backendPort: port });
    return { port, varnish };
  }

  async function startService(port: number, purgeUrl: string): Promise<ServiceProcess> {
    const service = await ServiceProcess.start(built.mainJs, {
      NODE_ENV: 'production',
      JWT_SECRET: SECRET,
      ...database.env,
      PORT: String(port),
      JOBS_ENABLED: 'true',
      CACHE_PURGE_URLS: purgeUrl,
    });
    closers.push(async () => {
      service.kill();
      await service.exited;
    });
    await service.waitUntilLive();
    return service;
  }

  async function write(service: ServiceProcess, method: string, path: string, title: string): Promise<BlogBody> {
    const res = await service.request({
      method,
      path,
      body: method === 'POST' ? { title, content: `${title}: content`, author: 'Alice' } : { title },
      headers: { Authorization: AUTHORIZATION },
    });
    expect({ status: res.status, error: res.error }).toEqual({ status: method === 'POST' ? 201 : 200 });
    return JSON.parse(res.text) as BlogBody;
  }

  /** Whether the cache's position in `cache_purges` is at the newest event (every event purged). */
  async function purgedThroughNewest(): Promise<boolean> {
    const client = new Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ caught_up: boolean }>(
        `SELECT bool_and("purged_through" = (SELECT max("id") FROM "events")) AS "caught_up" FROM "cache_purges"`,
      );
      return rows[0].caught_up === true;
    } finally {
      await client.end();
    }
  }

  beforeEach(async () => {
    database = await createTestDatabase();
  });

  it('Varnish down under writes: every write 2xx, purges refused and retried until the cache shows the new state', async () => {
    const { port, varnish: cache } = await varnishForService();
    // The purges reach Varnish through a TCP proxy, which can refuse them while Varnish keeps its pages.
    const purgePath = new TcpProxy({ host: '127.0.0.1', port: cache.port });
    await purgePath.listen();
    closers.push(() => purgePath.refuse());
    const service = await startService(port, `http://127.0.0.1:${purgePath.port}`);
    const blog = await write(service, 'POST', BLOGS, 'first');
    await eventually(purgedThroughNewest, 'the purge of the first create');

    expect(await blogThrough(cache, blog.id)).toEqual([200, 'MISS', 'first']);
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', 'first']);
    expect(await listThrough(cache)).toEqual([200, 'MISS', ['first']]);
    expect(await listThrough(cache)).toEqual([200, 'HIT', ['first']]);

    // Varnish stopped: the writes do not wait on it, their purges fail and stay pending.
    await cache.stop();
    const failedBefore = await metric(service, FAILED);
    await write(service, 'PATCH', `${BLOGS}/${blog.id}`, 'first, updated while Varnish is down');
    await write(service, 'POST', BLOGS, 'second');
    await write(service, 'POST', BLOGS, 'third');
    await eventually(
      async () => (await metric(service, FAILED)) > failedBefore && (await metric(service, PENDING)) > 0,
      'failed purges and a backlog',
    );

    // Started again (empty): pages read before the backlog drains are fetched anew, and once it has drained
    // (the retried purges answered 2xx) every read, the cached one too, shows the state after the writes.
    const sentBefore = await metric(service, SENT);
    await cache.start();
    const updated = ['first, updated while Varnish is down', 'second', 'third'];
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'MISS', updated[0]]);
    expect(await listThrough(cache)).toEqual([200, 'MISS', updated]);
    await eventually(
      async () => (await metric(service, SENT)) > sentBefore && (await metric(service, PENDING)) === 0,
      'the backlog purged',
    );
    // The first read may be a MISS (a late purge removed what was read above), the second is kept.
    const [blogAgain, listAgain] = [await blogThrough(cache, blog.id), await listThrough(cache)];
    expect([blogAgain[2], listAgain[2]]).toEqual([updated[0], updated]);
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', updated[0]]);
    expect(await listThrough(cache)).toEqual([200, 'HIT', updated]);

    // Purges refused while Varnish keeps the pages: it serves them stale (HIT, old state) until a retried purge
    // gets through. Were purges not retried, these pages would stay cached for a day and the wait below would fail.
    await purgePath.refuse();
    const failedThen = await metric(service, FAILED);
    await write(service, 'PATCH', `${BLOGS}/${blog.id}`, 'first, updated while purges are refused');
    await write(service, 'POST', BLOGS, 'fourth');
    await eventually(
      async () => (await metric(service, FAILED)) > failedThen && (await metric(service, PENDING)) > 0,
      'refused purges and a backlog',
    );
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', updated[0]]);
    expect(await listThrough(cache)).toEqual([200, 'HIT', updated]);

    await purgePath.listen();
    let blogRead: [number, string | null, string] = [0, null, ''];
    await eventually(async () => {
      blogRead = await blogThrough(cache, blog.id);
      return blogRead[2] !== updated[0];
    }, 'the stale blog purged');
    // The first read after the purge is fetched from the service: the stale page was removed, not replaced.
    expect(blogRead).toEqual([200, 'MISS', 'first, updated while purges are refused']);
    expect(await listThrough(cache)).toEqual([
      200,
      'MISS',
      ['first, updated while purges are refused', 'fourth', 'second', 'third'],
    ]);
    await eventually(async () => (await metric(service, PENDING)) === 0, 'the backlog purged again');
  });

  it('the service SIGKILLed between a write and its purge: the purge is made after the restart', async () => {
    const { port, varnish: cache } = await varnishForService();
    const proxy = new HoldingProxy(cache);
    await proxy.listen();
    closers.push(() => proxy.close());
    const first = await startService(port, proxy.url);
    const blog = await write(first, 'POST', BLOGS, 'before');
    await eventually(purgedThroughNewest, 'the purge of the create');
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'MISS', 'before']);
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', 'before']);

    // The update's purge is in flight (held by the proxy, the position not moved) when the process is killed.
    proxy.armed = true;
    await write(first, 'PATCH', `${BLOGS}/${blog.id}`, 'after');
    await eventually(() => proxy.held.some((keys) => namesBlog(keys, blog.id)), 'the held purge of the update');
    first.kill();
    await first.exited;
    proxy.armed = false;
    expect(await purgedThroughNewest()).toBe(false);
    // Still served stale: the held purge never reached Varnish.
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', 'before']);

    // Restarted on the same database (and port, behind the same Varnish): its relay leases the cache once the killed
    // process's lease lapses (30 s) and purges from the position that never moved; the wait is bounded at three times
    // that.
    const restartedAt = Date.now();
    const forwardedBefore = proxy.forwarded.length;
    await startService(port, proxy.url);
    let read: [number, string | null, string] = [0, null, ''];
    await eventually(
      async () => {
        read = await blogThrough(cache, blog.id);
        if (read[2] === 'before') expect(read).toEqual([200, 'HIT', 'before']);
        return read[2] !== 'before';
      },
      'the purge after the restart',
      90_000,
    );
    expect(read).toEqual([200, 'MISS', 'after']);
    expect(proxy.forwarded.slice(forwardedBefore).some((keys) => namesBlog(keys, blog.id))).toBe(true);
    expect(await blogThrough(cache, blog.id)).toEqual([200, 'HIT', 'after']);
    await eventually(purgedThroughNewest, 'the position at the newest event');
    console.log(`purge after a SIGKILL: made ${Date.now() - restartedAt} ms after the restart`);
  });
});

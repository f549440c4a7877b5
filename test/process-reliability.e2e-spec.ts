import { STATUS_CODES, Agent, request as httpRequest } from 'node:http';
import { Client } from 'pg';
import { mintToken } from '../src/auth/token-minter';
import { MIGRATION_LOCK_APPLICATION_NAME, MIGRATION_LOCK_KEY } from '../src/database/run-migrations';
import { BlogInput, BLOGS, sleep } from './support/blog-api';
import { buildService, cleanUpServiceProcesses, Exchange, ServiceProcess } from './support/service-process';
import { createTestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';
import { throwawayClusterUnavailableReason, ThrowawayCluster } from './support/throwaway-postgres';

// The service as a real process (`node dist/main.js`, built from the sources) under load, with
// real signals and a real PostgreSQL cluster of the test's own that is crashed and restarted:
// graceful shutdown on SIGTERM, 503 within 5 s while the database is down and recovery without a
// restart, no acknowledged write lost, and migrations run once when replicas start together.
// Measured figures are printed (console.log) for the README.

const SECRET = 'process-e2e-secret-0123456789abcdefghijklmnopqrst';
const BOUND_MS = 5_000;

let mainJs: string;

beforeAll(async () => {
  mainJs = await buildService();
}, 120_000);

afterAll(() => {
  cleanUpServiceProcesses();
});

function authorization(sub: string): string {
  return `Bearer ${mintToken({ secret: SECRET }, { sub, ttl: '1h' })}`;
}

function blogInput(label: string): BlogInput {
  return { title: `${label} title`, content: `${label} content`, author: `${label} author` };
}

/** The contract's error body for `status`. */
function isContractError(exchange: Exchange, status: number): boolean {
  if (exchange.status !== status) return false;
  try {
    const body = JSON.parse(exchange.text) as Record<string, unknown>;
    return (
      Object.keys(body).sort().join() === 'error,message,statusCode' &&
      body.statusCode === status &&
      body.error === STATUS_CODES[status] &&
      typeof body.message === 'string'
    );
  } catch {
    return false;
  }
}

const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

/** A POST whose body is sent in two halves: the first now, the second when `finish` is called. */
function startSlowUpload(port: number, auth: string, body: BlogInput): { finish: () => void; result: Promise<Exchange> } {
  const json = JSON.stringify(body);
  const cut = Math.floor(json.length / 2);
  const startedAt = Date.now();
  const req = httpRequest({
    host: '127.0.0.1', port, method: 'POST', path: BLOGS,
    headers: { Authorization: auth, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(json)) },
  });
  const result = new Promise<Exchange>((done) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode, text, startedAt, endedAt: Date.now() }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => done({ error: error.code ?? error.message, text: '', startedAt, endedAt: Date.now() }));
  });
  req.write(json.slice(0, cut));
  return { finish: () => req.end(json.slice(cut)), result };
}

describe('graceful shutdown on SIGTERM (the built service under load)', () => {
  it('stops accepting connections, lets every in-flight request finish, closes the database and exits 0 within SHUTDOWN_TIMEOUT_MS (default 10 s)', async () => {
    const database = await createTestDatabase();
    const service = await ServiceProcess.start(mainJs, { NODE_ENV: 'production', JWT_SECRET: SECRET, ...database.env });
    const auth = authorization('alice');
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    try {
      await service.waitUntilLive();

      // Keep-alive readers and writers: steady load before and across the signal.
      let sigtermAt = Number.POSITIVE_INFINITY;
      let loading = true;
      const steady: Exchange[] = [];
      const workers = Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; loading; i += 1) {
          const exchange =
            i % 2 === 0
              ? await service.request({ method: 'POST', path: BLOGS, body: blogInput(`steady ${w}-${i}`), headers: { Authorization: auth }, agent })
              : await service.request({ path: `${BLOGS}?limit=5`, agent });
          steady.push(exchange);
          if (exchange.startedAt > sigtermAt) break; // the service is going away: stop sending
        }
      });

      // Slow uploads: headers and half the body now, the rest 1.5 s after SIGTERM, so these
      // requests are in flight, on open connections, for the whole drain.
      const slowBodies = Array.from({ length: 10 }, (_, i) => blogInput(`slow ${i}`));
      const slow = slowBodies.map((body) => startSlowUpload(service.port, auth, body));

      await sleep(1_000);
      sigtermAt = Date.now();
      service.signal('SIGTERM');
      setTimeout(() => slow.forEach((upload) => upload.finish()), 1_500);
      const slowDone = Promise.all(slow.map((upload) => upload.result));
      await sleep(100);
      const refused = await service.request({ path: '/health/live', timeoutMs: 2_000 });
      const exit = await service.exited;
      loading = false;
      await Promise.all(workers);
      const slowResults = await slowDone;

      // A new connection is not served: refused once the listener is closed, or reset when it was
      // still in the accept queue at that moment (the event loop may be busy when the signal comes).
      expect({ status: refused.status, error: refused.error }).toEqual({ status: undefined, error: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/) });
      // Every request that started before the signal got its answer: 201 or 200, none failed.
      const inFlight = steady.filter((e) => e.startedAt < sigtermAt);
      expect(inFlight.length).toBeGreaterThan(10);
      expect(inFlight.filter((e) => e.status !== 200 && e.status !== 201)).toEqual([]);
      expect(slowResults.map((e) => e.status ?? e.error)).toEqual(slowBodies.map(() => 201));
      // Exit 0 (not killed by the signal), after the slow requests, within the default bound.
      const exitMs = exit.at - sigtermAt;
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      expect(exitMs).toBeGreaterThanOrEqual(1_400);
      expect(exitMs).toBeLessThan(10_000);
      expect(service.output()).toMatch(/SIGTERM received/);
      expect(service.output()).toMatch(/Requests in flight finished/);
      const atSignal = inFlight.filter((e) => e.endedAt >= sigtermAt).length + slowResults.length;
      console.log(
        `graceful shutdown (${database.kind}): ${inFlight.length + slowResults.length} requests started before SIGTERM, ` +
          `${atSignal} of them in flight at the signal (${slowResults.length} slow uploads finishing 1.5 s later), 0 failed; ` +
          `exit 0 after ${exitMs} ms`,
      );

      // Every acknowledged create is stored, and the database was released: a new app opens it
      // (for the embedded database that needs the DATA_DIR lock to be free).
      const after = await createTestApp({}, database);
      try {
        for (const body of slowBodies) {
          const rows: unknown[] = await after.dataSource.query('SELECT 1 FROM blogs WHERE title = $1 AND content = $2 AND author = $3', [body.title, body.content, body.author]);
          expect(rows).toHaveLength(1);
        }
      } finally {
        await after.close();
      }
    } finally {
      agent.destroy();
      service.kill();
    }
  }, 120_000);

  it('a request that never completes is cut off at SHUTDOWN_TIMEOUT_MS: the process exits (code 1) within the bound instead of hanging', async () => {
    const database = await createTestDatabase();
    const service = await ServiceProcess.start(mainJs, { NODE_ENV: 'production', JWT_SECRET: SECRET, SHUTDOWN_TIMEOUT_MS: '1500', ...database.env });
    try {
      await service.waitUntilLive();
      const stalled = httpRequest({
        host: '127.0.0.1', port: service.port, method: 'POST', path: BLOGS,
        headers: { Authorization: authorization('alice'), 'Content-Type': 'application/json', 'Content-Length': '1000' },
      });
      const stalledError = new Promise<string>((done) => stalled.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message)));
      stalled.write('{"title":'); // and never the rest
      await sleep(300);
      const sigtermAt = Date.now();
      service.signal('SIGTERM');
      const exit = await service.exited;

      expect(exit.code).toBe(1);
      expect(exit.at - sigtermAt).toBeGreaterThanOrEqual(1_400);
      expect(exit.at - sigtermAt).toBeLessThan(1_500 + 3_000);
      await expect(stalledError).resolves.toMatch(/ECONNRESET|socket hang up/);
      expect(service.output()).toMatch(/1 connection\(s\) still busy after 1500 ms were cut off/);
    } finally {
      service.kill();
      await database.drop();
    }
  }, 60_000);
});

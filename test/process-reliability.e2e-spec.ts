import { Agent, request as httpRequest } from 'node:http';
import { BlogInput, BLOGS, distinctBlogInput, sleep, until } from './support/blog-api';
import {
  Exchange,
  PROCESS_JWT_SECRET,
  processAuthorization,
  ServiceProcess,
  useBuiltService,
} from './support/service-process';
import { createTestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(240_000));

// The service as a real process (`node dist/main.js`, built from the sources) under load, with
// real signals, on the run's database (PostgreSQL or the embedded one): graceful shutdown on
// SIGTERM, every in-flight request finished and every acknowledged write stored, and a request
// that never completes cut off at SHUTDOWN_TIMEOUT_MS. The same process beside a PostgreSQL cluster
// of the test's own that crashes: test/cluster-reliability.e2e-spec.ts.
// Measured figures are printed (console.log) for docs/reliability.md.

const built = useBuiltService();

/**
 * A POST whose body is sent in two halves: the first once the server has the request (its
 * `100 Continue` answers `Expect: 100-continue`, so `accepted` proves the request is in progress
 * on the server), the second when `finish` is called.
 */
function startSlowUpload(
  port: number,
  auth: string,
  body: BlogInput,
): { accepted: Promise<void>; finish: () => void; result: Promise<Exchange> } {
  const json = JSON.stringify(body);
  const cut = Math.floor(json.length / 2);
  const startedAt = Date.now();
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: BLOGS,
    headers: {
      Authorization: auth,
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(json)),
      Expect: '100-continue',
    },
  });
  const result = new Promise<Exchange>((done) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => done({ status: res.statusCode, text, startedAt, endedAt: Date.now() }));
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      done({ error: error.code ?? error.message, text: '', startedAt, endedAt: Date.now() }),
    );
  });
  const accepted = new Promise<void>((done) => req.once('continue', () => req.write(json.slice(0, cut), () => done())));
  req.flushHeaders();
  return { accepted, finish: () => req.end(json.slice(cut)), result };
}

describe('graceful shutdown on SIGTERM (the built service under load)', () => {
  it('stops accepting connections, lets every in-flight request finish, closes the database and exits 0 within SHUTDOWN_TIMEOUT_MS (default 10 s)', async () => {
    const database = await createTestDatabase();
    const service = await ServiceProcess.start(built.mainJs, {
      NODE_ENV: 'production',
      JWT_SECRET: PROCESS_JWT_SECRET,
      ...database.env,
    });
    const auth = processAuthorization('alice');
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
              ? await service.request({
                  method: 'POST',
                  path: BLOGS,
                  body: distinctBlogInput(`steady ${w}-${i}`),
                  headers: { Authorization: auth },
                  agent,
                })
              : await service.request({ path: `${BLOGS}?limit=5`, agent });
          steady.push(exchange);
          if (exchange.startedAt > sigtermAt) break; // the service is going away: stop sending
        }
      });

      // Slow uploads: headers and half the body before SIGTERM, the rest 1.5 s after it, so these
      // requests are in flight, on open connections, for the whole drain. The signal waits until
      // the server has every one of them and the steady load has had 12 answers (however busy the machine).
      const slowBodies = Array.from({ length: 10 }, (_, i) => distinctBlogInput(`slow ${i}`));
      const slow = slowBodies.map((body) => startSlowUpload(service.port, auth, body));
      await Promise.all(slow.map((upload) => upload.accepted));
      await until(() => steady.length >= 12);
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
      expect({ status: refused.status, error: refused.error }).toEqual({
        status: undefined,
        error: expect.stringMatching(/^(ECONNREFUSED|ECONNRESET)$/),
      });
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
          const rows: unknown[] = await after.dataSource.query(
            'SELECT 1 FROM blogs WHERE title = $1 AND content = $2 AND author = $3',
            [body.title, body.content, body.author],
          );
          expect(rows).toHaveLength(1);
        }
      } finally {
        await after.close();
      }
    } finally {
      agent.destroy();
      service.kill();
    }
  });

  it('a request that never completes is cut off at SHUTDOWN_TIMEOUT_MS: the process exits (code 1) within the bound instead of hanging', async () => {
    const database = await createTestDatabase();
    const service = await ServiceProcess.start(built.mainJs, {
      NODE_ENV: 'production',
      JWT_SECRET: PROCESS_JWT_SECRET,
      SHUTDOWN_TIMEOUT_MS: '1500',
      ...database.env,
    });
    try {
      await service.waitUntilLive();
      const stalled = httpRequest({
        host: '127.0.0.1',
        port: service.port,
        method: 'POST',
        path: BLOGS,
        headers: {
          Authorization: processAuthorization('alice'),
          'Content-Type': 'application/json',
          'Content-Length': '1000',
          Expect: '100-continue',
        },
      });
      const stalledError = new Promise<string>((done) =>
        stalled.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message)),
      );
      // Once the server has the request (its 100 Continue), the start of a body, and never the rest.
      const accepted = new Promise<void>((done) =>
        stalled.once('continue', () => stalled.write('{"title":', () => done())),
      );
      stalled.flushHeaders();
      await accepted;
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
  });
});

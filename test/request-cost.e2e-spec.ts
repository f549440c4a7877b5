import { request as httpRequest } from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { BLOGS, BODY, bearer, sleep } from './support/blog-api';
import { useTestApp } from './support/test-app';

// One request must not stall the service: each hostile request below gets its small error answer, and
// /health/live probes sent while it runs are answered. Requests go over real sockets to a listening
// server in this process; the longest event-loop stall and the slowest reply are logged, not bounded
// (a wall-clock bound flakes on a loaded 2-core machine).

interface Reply {
  readonly status: number;
  readonly bytes: number;
  readonly ms: number;
}

const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
let port: number;
let token: string;
let blogId: number;

beforeAll(async () => {
  port = await t.listen();
  token = bearer(t.token('owner'));
  blogId = (await t.http.post(BLOGS).set('Authorization', token).send(BODY).expect(201)).body.id;
});

/** Sends one request on its own connection and times it until the whole answer has arrived. */
function send(method: string, path: string, headers: Record<string, string> = {}, body?: Buffer): Promise<Reply> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: false,
        headers: { ...headers, 'Content-Length': String(body?.length ?? 0) },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const json = (value: string): Buffer => Buffer.from(value, 'utf8');

/** A create or update body of 1 MiB at most, with ~100,000 unknown keys after the three fields. */
function manyKeys(): string {
  const parts = ['"title":"t","content":"c","author":"a"'];
  let length = parts[0].length;
  for (let i = 0; length < 1_040_000; i += 1) {
    const part = `"${i}":0`;
    parts.push(part);
    length += part.length + 1;
  }
  return `{${parts.join(',')}}`;
}

const KEYS = manyKeys();
const NESTED = '['.repeat(1_048_000);
const BLANKS = `,${' '.repeat(16_000)}x`;
const jsonHeaders = { 'Content-Type': 'application/json' };

// A read may ignore an If-None-Match it cannot parse (200) or refuse it (400).
const ATTACKS: readonly [string, number, number | readonly number[], () => Promise<Reply>][] = [
  [
    'POST with ~100,000 unknown keys',
    1,
    400,
    () => send('POST', BLOGS, { ...jsonHeaders, Authorization: token }, json(KEYS)),
  ],
  [
    'PUT with ~100,000 unknown keys, gzip',
    1,
    400,
    () =>
      send(
        'PUT',
        `${BLOGS}/${blogId}`,
        { ...jsonHeaders, Authorization: token, 'Content-Encoding': 'gzip' },
        gzipSync(json(KEYS)),
      ),
  ],
  [
    'PUT with If-Match: a comma and 16,000 blanks',
    20,
    400,
    () =>
      send(
        'PUT',
        `${BLOGS}/${blogId}`,
        { ...jsonHeaders, Authorization: token, 'If-Match': BLANKS },
        json(JSON.stringify(BODY)),
      ),
  ],
  [
    'GET with If-None-Match: a comma and 16,000 blanks',
    20,
    [200, 400],
    () => send('GET', `${BLOGS}/${blogId}`, { 'If-None-Match': BLANKS }),
  ],
  ['POST 1 MiB of nested [ without a token', 6, 401, () => send('POST', BLOGS, jsonHeaders, json(NESTED))],
  [
    'POST 1 MiB of nested [ to a path with no route',
    6,
    404,
    () => send('POST', '/api/v1/nothing', jsonHeaders, json(NESTED)),
  ],
  [
    'PUT 1 MiB of nested [ with a token',
    1,
    400,
    () => send('PUT', `${BLOGS}/${blogId}`, { ...jsonHeaders, Authorization: token }, json(NESTED)),
  ],
];

/** Probes /health/live every 20 ms until `done` settles; resolves the probes' answers. */
async function probeHealth(done: Promise<unknown>): Promise<Reply[]> {
  let settled = false;
  void done.finally(() => (settled = true));
  const probes: Reply[] = [];
  while (!settled) {
    probes.push(await send('GET', '/health/live'));
    await sleep(20);
  }
  return probes;
}

describe('hostile requests are cheap', () => {
  it.each(ATTACKS)(
    '%s (x%d): %p with a small body, /health/live answering meanwhile',
    async (name, copies, status, attack) => {
      const stalls = monitorEventLoopDelay({ resolution: 10 });
      stalls.enable();
      const attacks = Promise.all(Array.from({ length: copies }, attack));
      const probes = await probeHealth(attacks);
      const replies = await attacks;
      stalls.disable();
      const stall = stalls.max / 1e6;
      const slowest = Math.max(...replies.map((reply) => reply.ms));
      const health = Math.max(...probes.map((probe) => probe.ms));
      console.log(
        `${name} (x${copies}): slowest ${slowest.toFixed(0)} ms; /health/live at most ${health.toFixed(0)} ms; longest stall ${stall.toFixed(0)} ms`,
      );

      expect(probes.length).toBeGreaterThan(0);
      expect(probes.every((probe) => probe.status === 200)).toBe(true);
      for (const reply of replies) {
        expect([status].flat()).toContain(reply.status);
        expect(reply.bytes).toBeLessThan(2_048);
      }
    },
  );
});

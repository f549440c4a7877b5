import { ChildProcess, spawn } from 'node:child_process';
import { STATUS_CODES, Agent } from 'node:http';
import { Client } from 'pg';
import { MIGRATION_LOCK_APPLICATION_NAME, MIGRATION_LOCK_KEY } from '../src/database/run-migrations';
import { BlogInput, BLOGS, distinctBlogInput, sleep, until } from './support/blog-api';
import {
  Exchange,
  PROCESS_JWT_SECRET,
  processAuthorization,
  ServiceProcess,
  useBuiltService,
} from './support/service-process';
import { throwawayClusterUnavailableReason, ThrowawayCluster } from './support/throwaway-postgres';
import { migrationNames } from './support/migrations';
import { PROBLEM_MEMBERS } from './support/problem';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(240_000));

// The service as a real process (`node dist/main.js`, built from the sources) beside a real
// PostgreSQL cluster of the test's own (initdb / pg_ctl), whatever the run's engine: 503 within 5 s
// while the database is down and recovery without a restart, no acknowledged write lost, and
// migrations run once when replicas or the migration CLI start together. It asserts nothing of the
// run's engine (ENGINE_FREE_SPECS): only the PostgreSQL run has it.
// Measured figures are printed (console.log) for docs/reliability.md.

/** Every migration of the service, in order: what a fresh database must end up with, once each. */
let MIGRATION_NAMES: readonly string[];

beforeAll(async () => {
  MIGRATION_NAMES = await migrationNames();
});

const built = useBuiltService();

const BOUND_MS = 5_000;

/** The JSON error body for `status`. */
function isErrorBody(exchange: Exchange, status: number): boolean {
  if (exchange.status !== status) return false;
  try {
    const body = JSON.parse(exchange.text) as Record<string, unknown>;
    return (
      Object.keys(body).sort().join() === PROBLEM_MEMBERS.join() &&
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

/**
 * Polls (every 100 ms, for at most {@link patience}(`ms`)) until `count` sessions of the migration runner wait on
 * the advisory lock; returns how many were waiting at the end.
 */
async function waitersOnMigrationLock(holder: Client, count: number, ms: number): Promise<number> {
  const deadline = Date.now() + patience(ms);
  for (;;) {
    const { rows } = await holder.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1`,
      [MIGRATION_LOCK_APPLICATION_NAME],
    );
    const waiting = Number(rows[0].n);
    if (waiting >= count || Date.now() > deadline) return waiting;
    await sleep(100);
  }
}

/** Whether TypeORM's migrations table exists yet (it is created by the first migration run). */
async function hasMigrationsTable(client: Client): Promise<boolean> {
  const { rows } = await client.query<{ table: string | null }>(
    `SELECT to_regclass('typeorm_migrations')::text AS table`,
  );
  return rows[0].table !== null;
}

// Skipped (and said so in the test name and on stderr) only when the PostgreSQL binaries are not
// installed; any other problem making the cluster fails the tests.
const clusterUnavailable = throwawayClusterUnavailableReason();
if (clusterUnavailable !== undefined)
  process.stderr.write(`SKIPPING the throwaway-cluster tests: ${clusterUnavailable}\n`);

(clusterUnavailable === undefined ? describe : describe.skip)(
  `a PostgreSQL cluster of the test's own (initdb / pg_ctl)${clusterUnavailable === undefined ? '' : ` — SKIPPED: ${clusterUnavailable}`}`,
  () => {
    let cluster: ThrowawayCluster;

    beforeAll(async () => {
      cluster = await ThrowawayCluster.create();
    });

    afterAll(async () => {
      await cluster?.destroy();
    });

    it('two replicas starting together on a fresh database: both wait on the advisory lock, both start, the migrations run once', async () => {
      const pg = cluster;
      const url = await pg.createDatabase('blog_replicas');
      const holder = new Client({ connectionString: url });
      await holder.connect();
      const replicas: ServiceProcess[] = [];
      try {
        // The test holds the lock first, so both replicas are certain to reach it while it is taken.
        await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
        replicas.push(
          ...(await Promise.all(
            [0, 1].map(() =>
              ServiceProcess.start(built.mainJs, {
                NODE_ENV: 'production',
                JWT_SECRET: PROCESS_JWT_SECRET,
                DATABASE_URL: url,
              }),
            ),
          )),
        );
        expect(await waitersOnMigrationLock(holder, 2, 30_000)).toBe(2);
        // Nothing ran while the lock was held.
        expect(await hasMigrationsTable(holder)).toBe(false);

        await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
        await Promise.all(replicas.map((replica) => replica.waitUntilLive()));

        const { rows: applied } = await holder.query<{ name: string }>(
          'SELECT name FROM typeorm_migrations ORDER BY id',
        );
        expect(applied.map((row) => row.name)).toEqual(MIGRATION_NAMES);
        const outputs = replicas.map((replica) => replica.output());
        const appliedAll = `Applied ${MIGRATION_NAMES.length} migration(s): ${MIGRATION_NAMES.join(', ')}`;
        expect(outputs.filter((output) => output.includes(appliedAll))).toHaveLength(1);
        expect(outputs.filter((output) => /No pending migrations/.test(output))).toHaveLength(1);
        for (const output of outputs) expect(output).not.toMatch(/Retrying|Unable to connect|ERROR/);

        // Both serve the same data.
        const created = await replicas[0].request({
          method: 'POST',
          path: BLOGS,
          body: distinctBlogInput('replica'),
          headers: { Authorization: processAuthorization('alice') },
        });
        expect(created.status).toBe(201);
        const id = (JSON.parse(created.text) as { id: number }).id;
        await expect(replicas[1].request({ path: `${BLOGS}/${id}` })).resolves.toMatchObject({ status: 200 });
      } finally {
        for (const replica of replicas) replica.kill();
        await holder.end();
      }
    });

    it('`npm run migration:run` (the CLI) takes the same advisory lock: run twice at once while the lock is held, both wait, the migrations run once', async () => {
      const url = await cluster.createDatabase('blog_cli_migrations');
      const holder = new Client({ connectionString: url });
      await holder.connect();
      const runs: ChildProcess[] = [];
      try {
        await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
        const outcomes = [0, 1].map(() => {
          const child = spawn('npm', ['run', '-s', 'migration:run'], {
            env: {
              ...process.env,
              DATABASE_URL: url,
              DATA_DIR: undefined,
              NODE_ENV: 'production',
              JWT_SECRET: undefined,
            },
            stdio: ['ignore', 'pipe', 'pipe'],
            detached: true, // its own process group, so the finally below can stop npm and ts-node
          });
          runs.push(child);
          let output = '';
          child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
          child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
          return new Promise<{ code: number | null; output: string }>((resolve) =>
            child.on('close', (code) => resolve({ code, output })),
          );
        });
        expect(await waitersOnMigrationLock(holder, 2, 60_000)).toBe(2);
        expect(await hasMigrationsTable(holder)).toBe(false);

        await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
        const results = await Promise.all(outcomes);

        expect(results.map((r) => r.code)).toEqual([0, 0]);
        const { rows: applied } = await holder.query<{ name: string }>(
          'SELECT name FROM typeorm_migrations ORDER BY id',
        );
        expect(applied.map((row) => row.name)).toEqual(MIGRATION_NAMES);
        const appliedAll = `Applied ${MIGRATION_NAMES.length} migration(s): ${MIGRATION_NAMES.join(', ')}`;
        expect(results.filter((r) => r.output.includes(appliedAll))).toHaveLength(1);
        expect(results.filter((r) => r.output.includes('No pending migrations'))).toHaveLength(1);
      } finally {
        for (const run of runs) {
          if (run.exitCode !== null || run.signalCode !== null || run.pid === undefined) continue;
          try {
            process.kill(-run.pid, 'SIGKILL');
          } catch {
            // the group is already gone
          }
        }
        await holder.end();
      }
    });

    it('the database crashes under load (pg_ctl stop -m immediate) and comes back: 503 + Retry-After within 5 s, no hang or crash, recovery within 5 s without a restart, no acknowledged write lost', async () => {
      const pg = cluster;
      const url = await pg.createDatabase('blog_faults');
      const service = await ServiceProcess.start(built.mainJs, {
        NODE_ENV: 'production',
        JWT_SECRET: PROCESS_JWT_SECRET,
        DATABASE_URL: url,
      });
      const auth = processAuthorization('alice');
      const agent = new Agent({ keepAlive: true, maxSockets: 6 });
      let loading = true;
      try {
        await service.waitUntilLive();

        /** What each blog must hold: the last acknowledged values, or one of the writes tried after them. */
        const blogs = new Map<number, { acked: BlogInput; unacknowledged: BlogInput[] }>();
        const exchanges: { op: string; exchange: Exchange }[] = [];
        let writesAcknowledged = 0;
        const workers = Array.from({ length: 6 }, async (_, w) => {
          const mine: number[] = [];
          for (let i = 0; loading; i += 1) {
            const step = i % 3;
            if (step === 0 || mine.length === 0) {
              const body = distinctBlogInput(`w${w} #${i}`);
              const exchange = await service.request({
                method: 'POST',
                path: BLOGS,
                body,
                headers: { Authorization: auth },
                agent,
              });
              exchanges.push({ op: 'create', exchange });
              if (exchange.status === 201) {
                const id = (JSON.parse(exchange.text) as { id: number }).id;
                blogs.set(id, { acked: body, unacknowledged: [] });
                mine.push(id);
                writesAcknowledged += 1;
              }
            } else if (step === 1) {
              const id = mine[mine.length - 1];
              exchanges.push({ op: 'read', exchange: await service.request({ path: `${BLOGS}/${id}`, agent }) });
            } else {
              const id = mine[i % mine.length];
              const body = distinctBlogInput(`w${w} #${i} updated`);
              const exchange = await service.request({
                method: 'PUT',
                path: `${BLOGS}/${id}`,
                body,
                headers: { Authorization: auth },
                agent,
              });
              exchanges.push({ op: 'update', exchange });
              const record = blogs.get(id) as { acked: BlogInput; unacknowledged: BlogInput[] };
              if (exchange.status === 200) {
                blogs.set(id, { acked: body, unacknowledged: [] });
                writesAcknowledged += 1;
              } else {
                record.unacknowledged.push(body);
              }
            }
            // A steady pace, not a flood: the machine is shared.
            await sleep(20);
          }
        });

        // Each phase lasts until it has the requests its assertions count, however busy the machine.
        await until(() => blogs.size > 20);
        const stopStarted = Date.now();
        await pg.stop('immediate');
        const stopped = Date.now();
        const readyDuringOutage: Exchange[] = [];
        const liveDuringOutage: Exchange[] = [];
        for (let i = 0; i < 4; i += 1) {
          await sleep(1_000);
          readyDuringOutage.push(await service.request({ path: '/health/ready' }));
          liveDuringOutage.push(await service.request({ path: '/health/live' }));
        }
        await until(() => exchanges.filter(({ exchange }) => exchange.startedAt >= stopped).length > 20);
        const startStarted = Date.now();
        await pg.start();
        const started = Date.now();
        await until(() => exchanges.filter(({ exchange }) => exchange.startedAt >= started + BOUND_MS).length > 20);
        loading = false;
        await Promise.all(workers);

        // Nothing hung and nothing but 200 / 201 / 503 was ever answered (no 500, no dropped connection).
        const all = exchanges.map(({ exchange }) => exchange);
        expect(all.filter((e) => e.endedAt - e.startedAt >= BOUND_MS)).toEqual([]);
        expect(all.filter((e) => ![200, 201, 503].includes(e.status ?? 0))).toEqual([]);
        expect(service.running).toBe(true);

        // Before the crash: all served.
        expect(all.filter((e) => e.endedAt < stopStarted && e.status === 503)).toEqual([]);
        // While the database was down: every request 503, the JSON error body, Retry-After, within 5 s.
        const outage = all.filter((e) => e.startedAt >= stopped && e.endedAt <= startStarted);
        expect(outage.length).toBeGreaterThan(20);
        expect(outage.filter((e) => !isErrorBody(e, 503) || !/^\d+$/.test(String(e.headers?.['retry-after'])))).toEqual(
          [],
        );
        expect(readyDuringOutage.map((e) => e.status)).toEqual([503, 503, 503, 503]);
        expect(liveDuringOutage.map((e) => e.status)).toEqual([200, 200, 200, 200]);

        // Recovery by itself: the first success after the restart within 5 s, and from 5 s on, everything succeeds.
        const afterRestart = all.filter((e) => e.startedAt >= started).sort((a, b) => a.startedAt - b.startedAt);
        const firstSuccess = afterRestart.find((e) => e.status !== 503);
        expect(firstSuccess).toBeDefined();
        const recoveryMs = (firstSuccess as Exchange).endedAt - started;
        expect(recoveryMs).toBeLessThan(BOUND_MS);
        const settled = afterRestart.filter((e) => e.startedAt >= started + BOUND_MS);
        expect(settled.length).toBeGreaterThan(20);
        expect(settled.filter((e) => e.status === 503)).toEqual([]);

        // No acknowledged write lost: every blog reads back with what was last acknowledged (or a
        // write tried after that whose answer was a 503: it may have been committed).
        let checked = 0;
        for (const [id, expected] of blogs) {
          const read = await service.request({ path: `${BLOGS}/${id}` });
          expect(read.status).toBe(200);
          const stored = JSON.parse(read.text) as BlogInput;
          const candidates = [expected.acked, ...expected.unacknowledged];
          expect(candidates).toContainEqual({ title: stored.title, content: stored.content, author: stored.author });
          checked += 1;
        }
        expect(checked).toBeGreaterThan(20);

        const latencies = outage.map((e) => e.endedAt - e.startedAt);
        console.log(
          `database crash: pg_ctl stop -m immediate took ${stopped - stopStarted} ms; ${outage.length} requests during the outage, all 503 ` +
            `(latency p50 ${percentile(latencies, 50)} ms, p95 ${percentile(latencies, 95)} ms, max ${Math.max(...latencies)} ms); ` +
            `restart (pg_ctl start -w) took ${started - startStarted} ms; first success ${recoveryMs} ms after the server was back; ` +
            `${all.length} requests in all, none over ${BOUND_MS} ms; ${writesAcknowledged} acknowledged writes, ${checked} blogs read back intact`,
        );
      } finally {
        loading = false;
        agent.destroy();
        service.kill();
      }
    });
  },
);

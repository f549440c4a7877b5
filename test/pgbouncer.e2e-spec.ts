import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { Response } from 'supertest';
import { mintToken } from '../src/auth/token-minter';
import { MIGRATION_LOCK_APPLICATION_NAME, MIGRATION_LOCK_KEY } from '../src/database/run-migrations';
import { BLOGS, BlogBody, bearer, blogInput, expectJsonError, INT4_MAX, sleep } from './support/blog-api';
import { applySessionSettings, pgBouncerUnavailableReason, ThrowawayPgBouncer } from './support/pgbouncer';
import {
  childEnvironment,
  cleanUpServiceProcesses,
  freePort,
  ServiceProcess,
  useBuiltService,
} from './support/service-process';
import { createTestApp, TestApp } from './support/test-app';
import { adminQuery, E2E_ENV, TestDatabase, withDatabase } from './support/test-database';
import { throwawayClusterUnavailableReason, ThrowawayCluster } from './support/throwaway-postgres';
import { migrationNames } from './support/migrations';
import { patience } from './support/patience';

// The service behind PgBouncer 1.18 in transaction pooling mode (DATABASE_POOLER=pgbouncer): a PgBouncer of the
// test's own in front of the run's PostgreSQL server (or, on embedded runs, a throwaway cluster), whose server
// connections the apps share. Start-up, migrations on the direct session, the blog operations from two replicas at
// once, and the statement timeout, all through it.

const ROOT = resolve(__dirname, '..');
const SECRET = 'pgbouncer-e2e-secret-0123456789abcdefghijklmnopq';
/** PgBouncer's `default_pool_size` here: far fewer server connections than the two apps' clients. */
const POOL_SIZE = 3;

let MIGRATION_NAMES: readonly string[];

beforeAll(async () => {
  MIGRATION_NAMES = await migrationNames();
});

// Processes of the built service, two apps and 2 s statement timeouts: minutes on a busy machine.
jest.setTimeout(patience(180_000));

const serverUrl = process.env[E2E_ENV.serverUrl];
// Skipped (and said so in the test name and on stderr) only when PgBouncer, or on an embedded run the PostgreSQL
// binaries for a cluster of the test's own, are not installed.
const unavailable = pgBouncerUnavailableReason() ?? (serverUrl ? undefined : throwawayClusterUnavailableReason());
if (unavailable !== undefined) process.stderr.write(`SKIPPING the PgBouncer tests: ${unavailable}\n`);

(unavailable === undefined ? describe : describe.skip)(
  `the service behind PgBouncer (pool_mode = transaction)${unavailable === undefined ? '' : ` — SKIPPED: ${unavailable}`}`,
  () => {
    let upstream: string;
    let cluster: ThrowawayCluster | undefined;
    let bouncer: ThrowawayPgBouncer;

    beforeAll(async () => {
      if (serverUrl) upstream = withDatabase(serverUrl, 'postgres');
      else upstream = (cluster = await ThrowawayCluster.create()).url();
      bouncer = await ThrowawayPgBouncer.start(upstream, { poolSize: POOL_SIZE });
    });

    afterAll(async () => {
      cleanUpServiceProcesses();
      await bouncer?.stop();
      await cluster?.destroy();
    });

    /**
     * A fresh database on the server; the app's environment reaches it through PgBouncer, its migrations directly.
     * With `sessionSettings` its role gets the settings docs/operations.md asks the operator for.
     */
    async function pooledDatabase({ sessionSettings }: { sessionSettings: boolean }): Promise<TestDatabase> {
      const name = `${process.env[E2E_ENV.prefix] ?? 'blog_e2e'}_pgb_${Math.random().toString(36).slice(2, 8)}`;
      await adminQuery(upstream, `CREATE DATABASE "${name}"`);
      if (sessionSettings) await applySessionSettings(upstream, name);
      return {
        kind: 'postgres',
        env: {
          DATABASE_URL: bouncer.url(name),
          DATABASE_POOLER: 'pgbouncer',
          DATABASE_MIGRATION_URL: withDatabase(upstream, name),
        },
        drop: async () => {
          await adminQuery(upstream, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
        },
      };
    }

    const nameOf = (database: TestDatabase): string => new URL(database.env.DATABASE_URL).pathname.slice(1);

    /** A session of its own straight on the server (not through PgBouncer), in `database`. */
    async function directSession(database: TestDatabase): Promise<Client> {
      const client = new Client({ connectionString: database.env.DATABASE_MIGRATION_URL });
      await client.connect();
      return client;
    }

    it.each([
      [{ statement_timeout: 2_000 }, 'statement_timeout'],
      [{ idle_in_transaction_session_timeout: 5_000 }, 'idle_in_transaction_session_timeout'],
      [{ options: '-c jit=off' }, 'options'],
    ])(
      'PgBouncer refuses the startup parameter %p the service sent before DATABASE_POOLER existed',
      async (parameter, name) => {
        const client = new Client({ connectionString: bouncer.url('postgres'), ...parameter });
        client.on('error', () => undefined);

        await expect(client.connect()).rejects.toThrow(`unsupported startup parameter: ${name}`);
        await client.end().catch(() => undefined);
      },
    );

    describe('start-up of the service process', () => {
      const built = useBuiltService();
      let database: TestDatabase;

      beforeAll(async () => {
        database = await pooledDatabase({ sessionSettings: true });
      });

      afterAll(async () => {
        cleanUpServiceProcesses();
        await database?.drop();
      });

      /** The built service, production mode, with the database variables `vars`. */
      function startService(vars: Record<string, string | undefined>): Promise<ServiceProcess> {
        return ServiceProcess.start(built.mainJs, {
          NODE_ENV: 'production',
          JWT_SECRET: SECRET,
          ...vars,
        });
      }

      it('without DATABASE_POOLER (the old startup parameters): it stops, and the one line that is not a log record says to set DATABASE_POOLER=pgbouncer', async () => {
        const service = await startService({ DATABASE_URL: database.env.DATABASE_URL });
        const exit = await service.exited;

        expect(exit.code).not.toBe(0);
        expect(exit.code).not.toBeNull();
        const plainLines = service
          .output()
          .split('\n')
          .filter((line) => line.trim() !== '' && !line.startsWith('{'));
        expect(plainLines).toEqual([
          `Cannot connect to PostgreSQL at 127.0.0.1:${bouncer.port}/${nameOf(database)} ` +
            '(unsupported startup parameter: statement_timeout): ' +
            'DATABASE_URL leads to a connection pooler that refuses startup parameters: set DATABASE_POOLER=pgbouncer',
        ]);
      });

      it('with DATABASE_POOLER=pgbouncer and DATABASE_MIGRATION_URL it starts, is ready and stores a blog (the regression)', async () => {
        const service = await startService(database.env);
        try {
          await service.waitUntilLive();
          const ready = await service.request({ path: '/health/ready' });
          const created = await service.request({
            method: 'POST',
            path: BLOGS,
            body: blogInput({ title: 'through PgBouncer' }),
            headers: { Authorization: bearer(mintToken({ secret: SECRET }, { sub: 'alice', ttl: '1h' })) },
          });

          expect({ ready: ready.status, created: created.status }).toEqual({ ready: 200, created: 201 });
          expect(service.output()).not.toMatch(/Retrying|Unable to connect|Behind PgBouncer/);
        } finally {
          service.kill();
        }
      });
    });

    describe('two replicas on one database, through one PgBouncer', () => {
      let database: TestDatabase;
      const apps: TestApp[] = [];

      beforeAll(async () => {
        database = await pooledDatabase({ sessionSettings: true });
      });

      afterAll(async () => {
        for (const app of apps.splice(0)) await app.close({ keepDatabase: true });
        await database?.drop();
      });

      it('migrations wait for the advisory lock on the direct session (DATABASE_MIGRATION_URL), not through PgBouncer, and run once it is free', async () => {
        const holder = await directSession(database);
        const warn = jest.spyOn(Logger.prototype, 'warn');
        try {
          await holder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
          const starting = createTestApp({}, database);
          starting.catch(() => undefined); // awaited below; a failure there fails the test

          let waiter: number | undefined;
          for (let tries = 0; tries < 300 && waiter === undefined; tries += 1) {
            const { rows } = await holder.query<{ pid: number }>(
              `SELECT a.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND NOT l.granted AND a.application_name = $1 AND a.datname = $2`,
              [MIGRATION_LOCK_APPLICATION_NAME, nameOf(database)],
            );
            waiter = rows[0]?.pid;
            if (waiter === undefined) await sleep(100);
          }
          expect(waiter).toEqual(expect.any(Number));
          const pooled = (await bouncer.admin<{ remote_pid: string }>('SHOW SERVERS')).map((s) => Number(s.remote_pid));
          expect(pooled).not.toContain(waiter);
          const { rows: tables } = await holder.query(`SELECT to_regclass('typeorm_migrations') AS t`);
          expect(tables).toEqual([{ t: null }]);

          await holder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]);
          apps.push(await starting);

          const { rows: applied } = await holder.query<{ name: string }>(
            'SELECT name FROM typeorm_migrations ORDER BY id',
          );
          expect(applied.map((row) => row.name)).toEqual(MIGRATION_NAMES);
          // The role has the session settings: start-up has nothing to warn about.
          expect(warn.mock.calls.flat().join('\n')).not.toContain('Behind PgBouncer');
        } finally {
          warn.mockRestore();
          await holder.end();
        }
      });

      it('the blog operations from both replicas at once, 12 clients on 3 server connections: create, read, list, update with If-Match (200, then 412 on the old tag), 403, 404', async () => {
        apps.push(await createTestApp({}, database));
        const [a, b] = apps;

        /** One client's operations; each step on one replica or the other, so the replicas see each other's writes. */
        async function client(i: number): Promise<(number | string)[]> {
          const [mine, other] = i % 2 === 0 ? [a, b] : [b, a];
          const sub = `writer-${i}`;
          const auth = bearer(mine.token(sub));
          const statuses: (number | string)[] = [];
          const created = await mine.http
            .post(BLOGS)
            .set('Authorization', auth)
            .send(blogInput({ title: `#${i}` }));
          statuses.push(created.status);
          const { id } = created.body as BlogBody;
          const read = await other.http.get(`${BLOGS}/${id}`);
          statuses.push(read.status, read.body.title === `#${i}` ? 'read back' : `read ${String(read.body.title)}`);
          const listed = await other.http.get(`${BLOGS}?limit=50`);
          statuses.push(listed.status, JSON.stringify(listed.body).includes(`"id":${id},`) ? 'listed' : 'not listed');
          const tag = String(read.headers.etag);
          const updated = await other.http
            .put(`${BLOGS}/${id}`)
            .set('Authorization', bearer(other.token(sub)))
            .set('If-Match', tag)
            .send(blogInput({ title: `#${i} v2` }));
          statuses.push(updated.status);
          const stale = await mine.http
            .put(`${BLOGS}/${id}`)
            .set('Authorization', auth)
            .set('If-Match', tag)
            .send(blogInput({ title: `#${i} lost` }));
          statuses.push(stale.status);
          const foreign = await mine.http
            .put(`${BLOGS}/${id}`)
            .set('Authorization', bearer(mine.token(`intruder-${i}`)))
            .send(blogInput());
          statuses.push(foreign.status);
          const missing = await other.http.get(`${BLOGS}/${INT4_MAX}`);
          statuses.push(missing.status);
          const final = await mine.http.get(`${BLOGS}/${id}`);
          statuses.push(final.body.title === `#${i} v2` ? 'kept v2' : `now ${String(final.body.title)}`);
          return statuses;
        }

        const results = await Promise.all(Array.from({ length: 12 }, (_, i) => client(i)));

        const expected = [201, 200, 'read back', 200, 'listed', 200, 412, 403, 404, 'kept v2'];
        expect(results).toEqual(Array.from({ length: 12 }, () => expected));
        // The apps' pools hold more client connections than PgBouncer has server connections: they were shared.
        const servers = await bouncer.connections('SERVERS', nameOf(database));
        const clients = await bouncer.connections('CLIENTS', nameOf(database));
        expect(servers.length).toBeGreaterThan(0);
        expect(servers.length).toBeLessThanOrEqual(POOL_SIZE);
        expect(clients.length).toBeGreaterThan(POOL_SIZE);
      });

      it('statement_timeout still holds: a statement held by a row lock is cancelled by the server at 2 s, answered 503 within 5 s, and changed nothing', async () => {
        const [app] = apps;
        const auth = bearer(app.token('alice'));
        const created = await app.http
          .post(BLOGS)
          .set('Authorization', auth)
          .send(blogInput({ title: 'locked' }));
        const { id } = created.body as BlogBody;
        const locker = await directSession(database);
        try {
          await locker.query('BEGIN');
          await locker.query('SELECT 1 FROM blogs WHERE id = $1 FOR UPDATE', [id]);

          const started = Date.now();
          const res: Response = await app.http
            .put(`${BLOGS}/${id}`)
            .set('Authorization', auth)
            .send(blogInput({ title: 'should not land' }));
          const ms = Date.now() - started;

          expect({ status: res.status, withinFiveSeconds: ms < 5_000 }).toEqual({
            status: 503,
            withinFiveSeconds: true,
          });
          expectJsonError(res, 503);
          expect(res.headers['retry-after']).toMatch(/^\d+$/);
          // The server cancelled it (the client's own 2.5 s bound would have left it waiting on the lock).
          await locker.query('SELECT pg_stat_clear_snapshot()');
          const { rows } = await locker.query<{ n: string }>(
            `SELECT count(*) AS n FROM pg_stat_activity
              WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'UPDATE%'`,
          );
          expect(Number(rows[0].n)).toBe(0);
        } finally {
          await locker.query('ROLLBACK').catch(() => undefined);
          await locker.end();
        }
        await sleep(100);
        const after = await app.http.get(`${BLOGS}/${id}`).expect(200);
        expect({ title: after.body.title, etag: after.headers.etag }).toEqual({ title: 'locked', etag: `"${id}-1"` });
      });
    });

    describe('when the operator did not give the role its session settings', () => {
      let database: TestDatabase;
      let app: TestApp | undefined;
      let warn: jest.SpyInstance;

      beforeAll(async () => {
        warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
        database = await pooledDatabase({ sessionSettings: false });
        app = await createTestApp({}, database);
      });

      afterAll(async () => {
        warn?.mockRestore();
        await app?.close();
      });

      it('start-up warns, naming each setting and what the service wants', () => {
        const warnings = warn.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('PgBouncer'));

        expect(warnings).toEqual([
          'Behind PgBouncer the server sessions have idle_in_transaction_session_timeout=0 (want 1–5000 ms), ' +
            "jit=on (want off), statement_timeout=0 (want 1–2000 ms): set them for the service's role " +
            '(docs/operations.md, "PgBouncer")',
        ]);
      });

      it("a statement held by a row lock is still answered 503 within 5 s (the client's query_timeout)", async () => {
        const t = app as TestApp;
        const auth = bearer(t.token('alice'));
        const { id } = (await t.http.post(BLOGS).set('Authorization', auth).send(blogInput())).body as BlogBody;
        const locker = await directSession(database);
        try {
          await locker.query('BEGIN');
          await locker.query('SELECT 1 FROM blogs WHERE id = $1 FOR UPDATE', [id]);

          const started = Date.now();
          const res = await t.http.put(`${BLOGS}/${id}`).set('Authorization', auth).send(blogInput());

          expect({ status: res.status, withinFiveSeconds: Date.now() - started < 5_000 }).toEqual({
            status: 503,
            withinFiveSeconds: true,
          });
          expectJsonError(res, 503);
        } finally {
          await locker.query('ROLLBACK').catch(() => undefined);
          await locker.end();
        }
      });
    });

    it('`npm run migration:run` works on DATABASE_MIGRATION_URL alone: DATABASE_URL (unreachable here) is never contacted', async () => {
      const database = await pooledDatabase({ sessionSettings: false });
      try {
        const unreachable = `postgres://postgres@127.0.0.1:${await freePort()}/${nameOf(database)}`;
        const child = spawn('npm', ['run', '-s', 'migration:run'], {
          cwd: ROOT,
          env: childEnvironment({ ...database.env, DATABASE_URL: unreachable, NODE_ENV: 'production' }),
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let output = '';
        child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
        const code = await new Promise<number | null>((done) => child.on('close', done));

        expect({ code, output }).toEqual({
          code: 0,
          output: expect.stringContaining(`Applied ${MIGRATION_NAMES.length} migration(s)`),
        });
        const holder = await directSession(database);
        try {
          const { rows } = await holder.query<{ name: string }>('SELECT name FROM typeorm_migrations ORDER BY id');
          expect(rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);
        } finally {
          await holder.end();
        }
      } finally {
        await database.drop();
      }
    });
  },
);

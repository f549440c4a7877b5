import { pgBouncerUnavailableReason, ThrowawayPgBouncer } from './pgbouncer';
import { adminQuery, E2E_ENV } from './test-database';

/** The PgBouncer of a `TEST_VIA_PGBOUNCER=1` run, for the global teardown (same process). */
export const RUN_PGBOUNCER = Symbol.for('blog-service e2e PgBouncer');

// Runs once before the e2e workers start (they inherit this process's environment): with
// DATABASE_URL set, each test file gets a fresh database on that server, named with this run's
// prefix; without it, each file gets a fresh embedded database. With TEST_VIA_PGBOUNCER=1 as well,
// a PgBouncer in transaction pooling mode is started in front of the server and the apps go through it.
export default async function globalSetup(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  const viaPgBouncer = process.env.TEST_VIA_PGBOUNCER === '1';
  if (!serverUrl) {
    if (viaPgBouncer)
      throw new Error('TEST_VIA_PGBOUNCER=1 needs DATABASE_URL: the PostgreSQL server to put PgBouncer in front of');
    delete process.env[E2E_ENV.serverUrl];
    return;
  }
  await adminQuery(serverUrl, 'SELECT 1'); // fail fast, with the driver's message, if unreachable
  process.env[E2E_ENV.serverUrl] = serverUrl;
  process.env[E2E_ENV.prefix] = `blog_e2e_${Date.now()}`;
  delete process.env[E2E_ENV.pgBouncerUrl];
  if (viaPgBouncer) {
    const unavailable = pgBouncerUnavailableReason();
    if (unavailable !== undefined) throw new Error(`TEST_VIA_PGBOUNCER=1, but ${unavailable}`);
    const bouncer = await ThrowawayPgBouncer.start(serverUrl);
    (globalThis as Record<symbol, unknown>)[RUN_PGBOUNCER] = bouncer;
    process.env[E2E_ENV.pgBouncerUrl] = bouncer.url('postgres');
  }
}

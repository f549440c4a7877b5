import { RUN_PGBOUNCER } from './global-setup';
import type { ThrowawayPgBouncer } from './pgbouncer';
import { adminQuery, E2E_ENV } from './test-database';

// Drops every database of this run that a crashed test file may have left behind, and stops the
// run's PgBouncer (TEST_VIA_PGBOUNCER=1).
export default async function globalTeardown(): Promise<void> {
  const bouncer = (globalThis as Record<symbol, unknown>)[RUN_PGBOUNCER] as ThrowawayPgBouncer | undefined;
  await bouncer?.stop();
  const serverUrl = process.env[E2E_ENV.serverUrl];
  const prefix = process.env[E2E_ENV.prefix];
  if (!serverUrl || !prefix) return;
  const { rows } = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}\\_%'`);
  for (const row of rows) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${String(row.datname)}" WITH (FORCE)`);
}

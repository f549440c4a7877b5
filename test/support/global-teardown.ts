import { rmSync } from 'node:fs';
import { RUN_PGBOUNCER, RUN_REPLICATED_CLUSTER } from './global-setup';
import type { ThrowawayPgBouncer } from './pgbouncer';
import type { ReplicatedCluster } from './replicated-postgres';
import { adminQuery, E2E_ENV } from './test-database';

// Removes the embedded run's migrated template; drops every database of this run that a crashed test file may have
// left behind, and stops the run's PgBouncer (TEST_VIA_PGBOUNCER=1); with TEST_WITH_REPLICA=1, removes the run's
// primary and replica, its databases with them.
export default async function globalTeardown(): Promise<void> {
  const template = process.env[E2E_ENV.embeddedTemplate];
  if (template) rmSync(template, { recursive: true, force: true });
  const globals = globalThis as Record<symbol, unknown>;
  const bouncer = globals[RUN_PGBOUNCER] as ThrowawayPgBouncer | undefined;
  await bouncer?.stop();
  const cluster = globals[RUN_REPLICATED_CLUSTER] as ReplicatedCluster | undefined;
  if (cluster !== undefined) return cluster.destroy();
  const serverUrl = process.env[E2E_ENV.serverUrl];
  const prefix = process.env[E2E_ENV.prefix];
  if (!serverUrl || !prefix) return;
  const { rows } = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}\\_%'`);
  for (const row of rows) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${String(row.datname)}" WITH (FORCE)`);
}

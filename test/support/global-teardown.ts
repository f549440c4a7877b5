import { rmSync } from 'node:fs';
import { RUN_PGBOUNCER, RUN_REPLICATED_CLUSTER } from './global-setup';
import type { ThrowawayPgBouncer } from './pgbouncer';
import type { ReplicatedCluster } from './replicated-postgres';
import { adminQuery, E2E_ENV } from './test-database';

// Removes the embedded run's templates; drops every database of this run that a crashed test file may have
// left behind, and stops the run's PgBouncers (TEST_VIA_PGBOUNCER=1); with TEST_WITH_REPLICA=1, removes the run's
// primary and replica, its databases with them.
export default async function globalTeardown(): Promise<void> {
  for (const template of [E2E_ENV.embeddedTemplate, E2E_ENV.embeddedEmptyTemplate].map((key) => process.env[key]))
    if (template) rmSync(template, { recursive: true, force: true });
  const globals = globalThis as Record<symbol, unknown>;
  const bouncers = (globals[RUN_PGBOUNCER] as ThrowawayPgBouncer[] | undefined) ?? [];
  for (const bouncer of bouncers) await bouncer.stop();
  const cluster = globals[RUN_REPLICATED_CLUSTER] as ReplicatedCluster | undefined;
  if (cluster !== undefined) return cluster.destroy();
  const serverUrl = process.env[E2E_ENV.serverUrl];
  const prefix = process.env[E2E_ENV.prefix];
  if (!serverUrl || !prefix) return;
  const { rows } = await adminQuery(serverUrl, `SELECT datname FROM pg_database WHERE datname LIKE '${prefix}\\_%'`);
  for (const row of rows) await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${String(row.datname)}" WITH (FORCE)`);
}

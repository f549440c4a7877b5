import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresOptions } from './data-source-options';

/**
 * Key of the PostgreSQL advisory lock held while migrations run (`pg_advisory_lock(bigint)`), the
 * same for every replica of this service on a database: the bytes of `blog_mig` as an int8.
 */
export const MIGRATION_LOCK_KEY = '7092166002975009127';

/** `application_name` of the connection that holds the migration lock (visible in `pg_stat_activity`). */
export const MIGRATION_LOCK_APPLICATION_NAME = 'blog-service migrations';

/** How long a replica waits for another one's migrations before its start-up attempt fails, in ms. */
export const MIGRATION_LOCK_TIMEOUT_MS = 60_000;

/**
 * Runs the pending migrations of `dataSource` (TypeORM's `runMigrations`, all in one transaction)
 * so that replicas starting together never run them at the same time: TypeORM takes no lock of
 * its own, so two replicas on a fresh database would both create the migrations table and both
 * run the same migration, and one would fail.
 *
 * On a PostgreSQL server the runs are serialised by a session-level advisory lock on
 * {@link MIGRATION_LOCK_KEY}, taken on one dedicated connection opened for the purpose (outside
 * the pool, so the pool's `statement_timeout` and read timeout do not cut the wait short) and
 * released, with that connection, once the migrations are done or failed. A replica that waits
 * finds nothing pending when its turn comes. The wait is bounded by `lock_timeout`
 * ({@link MIGRATION_LOCK_TIMEOUT_MS}); a process that dies holding the lock loses its session, and
 * with it the lock.
 *
 * The embedded database takes no advisory lock: only one process can open a `DATA_DIR` (see
 * `DataDirLock`), and its one session serves one lease at a time, so a dedicated connection would
 * wait for itself.
 *
 * @param options - the options `dataSource` was built from: `url` set means a PostgreSQL server.
 * @returns the names of the migrations this call applied (none when another replica did).
 * @throws the migration's error (nothing of it is kept: one transaction), a connection error, or
 *   PostgreSQL's `lock_timeout` error (55P03) when the lock was not free within the bound.
 */
export async function runMigrationsExclusively(dataSource: DataSource, options: PostgresOptions): Promise<string[]> {
  const logger = new Logger('Migrations');
  if (options.url === undefined) return report(logger, await dataSource.runMigrations({ transaction: 'all' }));

  const lockHolder = new Client({
    connectionString: options.url,
    application_name: MIGRATION_LOCK_APPLICATION_NAME,
    connectionTimeoutMillis: options.connectTimeoutMS,
    lock_timeout: MIGRATION_LOCK_TIMEOUT_MS,
  });
  // An error on the idle lock connection (server gone) must not crash the process: the migration
  // queries fail on their own connection and end the attempt.
  lockHolder.on('error', (error: Error) => logger.warn(`Migration lock connection: ${error.message}`));
  await lockHolder.connect();
  try {
    await lockHolder.query('SELECT pg_advisory_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    return report(logger, await dataSource.runMigrations({ transaction: 'all' }));
  } finally {
    // Ending the session releases the lock even if the unlock cannot be sent.
    await lockHolder.query('SELECT pg_advisory_unlock($1::bigint)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await lockHolder.end().catch(() => undefined);
  }
}

function report(logger: Logger, applied: readonly { readonly name: string }[]): string[] {
  const names = applied.map((migration) => migration.name);
  logger.log(names.length > 0 ? `Applied ${names.length} migration(s): ${names.join(', ')}` : 'No pending migrations');
  return names;
}

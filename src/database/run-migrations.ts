import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresOptions } from './data-source-options';
import { DatabaseConnectionError } from './database-connection.error';

/** Key of the advisory lock held while migrations run: the bytes of `blog_mig` as an int8. */
export const MIGRATION_LOCK_KEY = '7092166002975009127';

/** `application_name` of the connection that holds the migration lock. */
export const MIGRATION_LOCK_APPLICATION_NAME = 'blog-service migrations';

/** How long a replica waits for another one's migrations before its start-up attempt fails, in ms. */
const MIGRATION_LOCK_TIMEOUT_MS = 60_000;

/**
 * Runs the pending migrations of `dataSource` in one transaction; on a PostgreSQL server, under the advisory lock
 * {@link MIGRATION_LOCK_KEY} taken in a session of its own on the same URL, which must reach PostgreSQL directly
 * (docs/reliability.md, "Migrations run once"). Returns the names applied.
 * @throws DatabaseConnectionError when the lock's session cannot connect; the migration's error; or
 *   `lock_timeout` (55P03) after {@link MIGRATION_LOCK_TIMEOUT_MS}.
 */
export async function runMigrationsExclusively(dataSource: DataSource): Promise<string[]> {
  const logger = new Logger('Migrations');
  const { url, connectTimeoutMS } = dataSource.options as PostgresOptions;
  if (url === undefined) return report(logger, await dataSource.runMigrations({ transaction: 'all' }));

  const lockHolder = new Client({
    connectionString: url,
    application_name: MIGRATION_LOCK_APPLICATION_NAME,
    connectionTimeoutMillis: connectTimeoutMS,
    lock_timeout: MIGRATION_LOCK_TIMEOUT_MS,
  });
  // Unhandled, an 'error' event would crash the process; the migration queries fail on their own.
  lockHolder.on('error', (error: Error) => logger.warn(`Migration lock connection: ${error.message}`));
  await lockHolder.connect().catch((error: unknown) => {
    throw new DatabaseConnectionError(url, error, 'DATABASE_MIGRATION_URL');
  });
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

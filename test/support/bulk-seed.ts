import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Connection, lease, onConnection } from '../../src/database/pooled-connection';

/** Rows per statement of {@link bulkSeed}: a few hundred ms on a busy 2-core machine. */
const SEED_BATCH = 500;

/** How long a seeding statement may take on a server, in ms: far past the service's own bounds, which are not the test's. */
const SEED_TIMEOUT_MS = 120_000;

/**
 * Runs the seeding statement `sql` once per batch of the numbers 1…`count`, with the batch's first and last number as
 * `$1` and `$2` (for `generate_series($1::int, $2::int)`) and `parameters` after them, on one connection of
 * `dataSource`'s primary. On a server each batch is a transaction of its own free of the service's statement and read
 * timeouts: a commit's WAL flush on a disk busy with a full test run outlasted the 2.5 s read timeout.
 */
export async function bulkSeed(dataSource: DataSource, count: number, sql: string, parameters: unknown[] = []) {
  const server = dataSource.options.type === 'postgres' && dataSource.options.driver === undefined;
  await onConnection(lease(dataSource.driver as PostgresDriver, 'master'), async (connection) => {
    for (let first = 1; first <= count; first += SEED_BATCH) {
      const values = [first, Math.min(count, first + SEED_BATCH - 1), ...parameters];
      await (server ? seedOnServer(connection, sql, values) : connection.query(sql, values));
    }
  });
}

/** Runs `sql` in a transaction with no statement timeout, waiting up to {@link SEED_TIMEOUT_MS} for each answer. */
async function seedOnServer(connection: Connection, sql: string, values: unknown[]): Promise<void> {
  const run = (text: string, parameters: unknown[] = []) =>
    connection.query({ text, values: parameters, query_timeout: SEED_TIMEOUT_MS });
  await run('BEGIN');
  try {
    await run('SET LOCAL statement_timeout = 0');
    await run(sql, values);
    await run('COMMIT');
  } catch (error) {
    await run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

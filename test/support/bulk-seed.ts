import type { DataSource } from 'typeorm';

/** Rows per statement of {@link bulkSeed}: far within the service's 2 s statement timeout on a busy 2-core machine. */
const SEED_BATCH = 500;

/**
 * Runs the seeding statement `sql` once per batch of the numbers 1…`count`, with the batch's first and last number as
 * `$1` and `$2` (for `generate_series($1::int, $2::int)`) and `parameters` after them: one statement writing thousands
 * of blogs through their triggers passes the service's timeouts under a full test run's load.
 */
export async function bulkSeed(dataSource: DataSource, count: number, sql: string, parameters: unknown[] = []) {
  for (let first = 1; first <= count; first += SEED_BATCH) {
    await dataSource.query(sql, [first, Math.min(count, first + SEED_BATCH - 1), ...parameters]);
  }
}

import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { isDatabaseUnavailableError } from './database-errors';

/** What a statement gives back: `pg`'s `rowCount`, or the embedded database's `affectedRows`. */
interface RawResult {
  readonly rows: Record<string, unknown>[];
  readonly rowCount?: number | null;
  readonly affectedRows?: number;
}

/** A statement as `pg` takes it: named to be prepared, with `query_timeout` (ms) to wait longer than the pool's. */
export interface QueryConfig {
  readonly name?: string;
  readonly text: string;
  readonly values: unknown[];
  readonly query_timeout?: number;
}

/** A pooled connection: a `pg` client, or the embedded database's session; a {@link QueryConfig} is `pg` only. */
export interface Connection {
  query(statement: string | QueryConfig, values?: unknown[]): Promise<RawResult>;
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

/** How a pool takes a connection back: with an error when it is broken, so that the pool closes it. */
export type Release = (error?: Error | boolean) => void;

/** A connection lent by a pool, as TypeORM's driver lends one (`obtainMasterConnection`, `obtainSlaveConnection`). */
export type Lease = readonly [Connection, Release];

/** A connection of TypeORM's Postgres driver: the primary's (`master`), or a replica's as the driver picks it (`slave`). */
export function lease(driver: PostgresDriver, mode: 'master' | 'slave'): Promise<Lease> {
  const obtained = mode === 'master' ? driver.obtainMasterConnection() : driver.obtainSlaveConnection();
  return obtained as Promise<unknown> as Promise<Lease>;
}

/**
 * Runs `work` on the connection of `lease` and gives it back, as broken when the database failed under it.
 * A lent connection's `error` event (the server gone) is taken here: the pool listens only to idle ones.
 * @throws what `lease` or `work` throws.
 */
export async function onConnection<T>(lease: Promise<Lease>, work: (connection: Connection) => Promise<T>): Promise<T> {
  const [connection, release] = await lease;
  let broken: Error | undefined;
  const onError = (error: Error): void => {
    broken = error;
  };
  connection.on('error', onError);
  let result: T;
  try {
    result = await work(connection);
  } catch (error) {
    broken ??= isDatabaseUnavailableError(error) ? (error as Error) : undefined;
    throw error;
  } finally {
    connection.removeListener('error', onError);
    release(broken);
  }
  return result;
}

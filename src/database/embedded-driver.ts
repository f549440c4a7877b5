import { mkdirSync } from 'node:fs';
import { PGliteDriver } from 'typeorm-pglite';
import { SerialPGlitePool } from './serial-pglite-pool';

/** The shape TypeORM's Postgres driver needs from its `driver` option: a `pg`-style pool class. */
export interface PgDriverModule {
  readonly Pool: typeof SerialPGlitePool;
}

/**
 * Prepares the embedded PostgreSQL (PGlite, WebAssembly) stored under `dataDir` and returns a
 * `pg`-compatible driver for TypeORM's `postgres` driver, so the same entity, migrations and
 * queries run on it as on a PostgreSQL server.
 *
 * PGlite is one session per process: `typeorm-pglite` keeps it process-wide, opened on the first
 * connection and closed when the DataSource is destroyed. Leases are serialised by
 * {@link SerialPGlitePool}.
 *
 * @param dataDir - directory of the database files; created if missing. A new directory takes a
 *   few seconds to initialise; later starts reuse it.
 */
export function createEmbeddedDriver(dataDir: string): PgDriverModule {
  mkdirSync(dataDir, { recursive: true });
  // The constructor only records the options of the process-wide PGlite instance (and the
  // boolean serialiser TypeORM needs); its own pool is replaced by the serialising one.
  new PGliteDriver({ dataDir });
  return { Pool: SerialPGlitePool };
}

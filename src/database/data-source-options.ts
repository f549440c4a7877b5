import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { createEmbeddedDriver } from './embedded-driver';
import { ReadTimeoutClosingClient } from './read-timeout-closing-client';

/** TypeORM options of the Postgres driver (TypeORM 1.x exports no named type for them). */
export type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/**
 * The migrations of every feature module: `src/<module>/migrations/*` (`dist/…/*.js` when built), run in the order of
 * the timestamps in their class names.
 */
const MIGRATIONS = join(__dirname, '..', '*', 'migrations', '*.{ts,js}');

/** Connection pool size against a PostgreSQL server. */
export const SERVER_POOL_SIZE = 10;

/** Bounds on every wait for the database, in ms (docs/architecture.md, "Data access and the database"). */
export const DATABASE_TIMEOUTS = { connectMs: 1_500, statementMs: 2_000, queryMs: 2_500 } as const;

/** Bounds on idle connections, in ms: a pooled one unused, and a server session idle inside a transaction. */
export const DATABASE_IDLE_LIMITS = { poolIdleMs: 10_000, idleInTransactionMs: 5_000 } as const;

/**
 * Settings every server session of the service has, as `pg_settings` shows them (timeouts in ms): startup
 * parameters on a direct connection; behind PgBouncer, settings of the service's role (docs/operations.md, "PgBouncer").
 */
export const SESSION_SETTINGS = {
  statement_timeout: String(DATABASE_TIMEOUTS.statementMs),
  idle_in_transaction_session_timeout: String(DATABASE_IDLE_LIMITS.idleInTransactionMs),
  // JIT compiled the list plan for ~30 ms to save under 1 ms (docs/architecture.md).
  jit: 'off',
} as const;

/** {@link SESSION_SETTINGS} as `pg` sends them in the startup message. */
const STARTUP_PARAMETERS = {
  statement_timeout: DATABASE_TIMEOUTS.statementMs,
  idle_in_transaction_session_timeout: DATABASE_IDLE_LIMITS.idleInTransactionMs,
  options: `-c jit=${SESSION_SETTINGS.jit}`,
} as const;

/** What {@link buildDataSourceOptions} reads: a {@link DatabaseConfig}; without `pooler`, a direct connection. */
type DataSourceSettings = Pick<DatabaseConfig, 'url' | 'dataDir'> &
  Partial<Pick<DatabaseConfig, 'pooler' | 'readUrls'>>;

/**
 * DataSource options: a PostgreSQL server when `database.url` is set, else embedded PGlite under `database.dataDir`.
 * Behind PgBouncer (`pooler: 'pgbouncer'`) the only startup parameter sent is `application_name`: it refuses the others.
 * With `readUrls`, TypeORM `replication`: the server is the master, each replica a slave with a pool of its own.
 */
export function buildDataSourceOptions(database: DataSourceSettings): PostgresOptions {
  const common = {
    type: 'postgres',
    migrations: [MIGRATIONS],
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
  } as const satisfies PostgresOptions;

  if (database.url !== undefined) {
    const { url, readUrls = [] } = database;
    return {
      ...common,
      ...(readUrls.length > 0
        ? { replication: { master: { url }, slaves: readUrls.map((readUrl) => ({ url: readUrl })) } }
        : { url }),
      poolSize: SERVER_POOL_SIZE,
      connectTimeoutMS: DATABASE_TIMEOUTS.connectMs,
      applicationName: 'blog-service',
      extra: {
        Client: ReadTimeoutClosingClient,
        query_timeout: DATABASE_TIMEOUTS.queryMs,
        idleTimeoutMillis: DATABASE_IDLE_LIMITS.poolIdleMs,
        keepAlive: true,
        ...(database.pooler === 'pgbouncer' ? {} : STARTUP_PARAMETERS),
      },
    };
  }
  return { ...common, driver: createEmbeddedDriver(database.dataDir), poolSize: 1 };
}

/**
 * Options of the direct session that start-up migrations run on (`database.migrationUrl`, one connection, the
 * service's bounds), or undefined when they run on the service's own DataSource: embedded, or the same direct server.
 */
export function buildMigrationDataSourceOptions(database: DatabaseConfig): PostgresOptions | undefined {
  const { url, migrationUrl, pooler, dataDir } = database;
  if (url === undefined || migrationUrl === undefined || (pooler === 'none' && migrationUrl === url)) return undefined;
  return { ...buildDataSourceOptions({ url: migrationUrl, dataDir }), poolSize: 1 };
}

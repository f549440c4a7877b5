import type { DataSourceOptions } from 'typeorm';
import { Blog } from '../blogs/blog.entity';
import type { AppConfig } from '../config/environment';
import { createEmbeddedDriver } from './embedded-driver';
import { CreateBlogs1795323623852 } from './migrations/1795323623852-CreateBlogs';

/** TypeORM options of the Postgres driver (TypeORM 1.x exports no named type for them). */
export type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/** Connection pool size against a PostgreSQL server: a few per core keeps 2 cores busy. */
export const SERVER_POOL_SIZE = 10;

/**
 * Bounds on every wait for the database, in ms, so that an unreachable or stuck server gives a
 * 503 within the contract's 5 s (with room for the request's other work) instead of a hanging
 * request: getting a connection (new or from a busy pool), a statement on the server, and the
 * client's wait for a reply.
 */
export const DATABASE_TIMEOUTS = { connectMs: 3_000, statementMs: 3_000, queryMs: 3_500 } as const;

/**
 * Builds the DataSource options for the configured database: a PostgreSQL server when
 * `database.url` is set, else the embedded PGlite database under `database.dataDir`. Both use the
 * same entities, migrations and SQL. Migrations are listed explicitly (no globs) so the same
 * options serve `ts-node`, jest and `dist/`; `synchronize` is never on.
 *
 * @param database - the `database` section of {@link AppConfig}.
 */
export function buildDataSourceOptions(database: AppConfig['database']): PostgresOptions {
  const common = {
    type: 'postgres',
    entities: [Blog],
    migrations: [CreateBlogs1795323623852],
    migrationsTableName: 'typeorm_migrations',
    synchronize: false,
  } as const satisfies PostgresOptions;

  if (database.url !== undefined) {
    return {
      ...common,
      url: database.url,
      poolSize: SERVER_POOL_SIZE,
      connectTimeoutMS: DATABASE_TIMEOUTS.connectMs,
      applicationName: 'blog-service',
      extra: {
        statement_timeout: DATABASE_TIMEOUTS.statementMs,
        query_timeout: DATABASE_TIMEOUTS.queryMs,
      },
    };
  }
  return { ...common, driver: createEmbeddedDriver(database.dataDir), poolSize: 1 };
}

import type { DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/database.config';
import { createEmbeddedDriver } from './embedded-driver';
import { CreateBlogs1795323623852 } from './migrations/1795323623852-CreateBlogs';
import { CountBlogs1795400000000 } from './migrations/1795400000000-CountBlogs';
import { AddBlogVersion1795400100000 } from './migrations/1795400100000-AddBlogVersion';
import { ReadTimeoutClosingClient } from './read-timeout-closing-client';

/** TypeORM options of the Postgres driver (TypeORM 1.x exports no named type for them). */
export type PostgresOptions = Extract<DataSourceOptions, { type: 'postgres' }>;

/** Connection pool size against a PostgreSQL server: a few per core keeps 2 cores busy. */
export const SERVER_POOL_SIZE = 10;

/**
 * Bounds on every wait for the database, in ms, so that an unreachable or stuck server gives a
 * 503 within the contract's 5 s instead of a hanging request. `connectMs` bounds getting a
 * connection, whether waiting for a busy pool or opening a new one (pg-pool times the whole
 * acquisition); `statementMs` is the server's `statement_timeout`; `queryMs` is the client's wait
 * for a reply, slightly longer so a slow statement is cancelled by the server first. Each
 * database call thus ends within connectMs + queryMs = 4 s, and a request against an unreachable
 * database gets its 503 from its first call. (A request of two calls against a server that is
 * reachable but answers just under the bounds could take longer; there is no per-request deadline,
 * because answering 503 while a write still runs would misreport it.)
 */
export const DATABASE_TIMEOUTS = { connectMs: 1_500, statementMs: 2_000, queryMs: 2_500 } as const;

/**
 * Bounds on idle connections, in ms: `poolIdleMs` closes a pooled connection unused for that long
 * (the pool shrinks after a burst, and a connection to a server that went away is not kept);
 * `idleInTransactionMs` makes the server end a session that sits inside an open transaction for
 * that long, so a client that vanished mid-transaction cannot hold row locks.
 */
export const DATABASE_IDLE_LIMITS = { poolIdleMs: 10_000, idleInTransactionMs: 5_000 } as const;

/**
 * Builds the DataSource options for the configured database: a PostgreSQL server when
 * `database.url` is set, else the embedded PGlite database under `database.dataDir`. Both use the
 * same entities, migrations and SQL. Migrations are listed explicitly (no globs) so the same
 * options serve `ts-node`, jest and `dist/`; `synchronize` is never on.
 *
 * @param database - the `database` configuration namespace.
 */
export function buildDataSourceOptions(database: DatabaseConfig): PostgresOptions {
  const common = {
    type: 'postgres',
    migrations: [CreateBlogs1795323623852, CountBlogs1795400000000, AddBlogVersion1795400100000],
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
        Client: ReadTimeoutClosingClient,
        statement_timeout: DATABASE_TIMEOUTS.statementMs,
        query_timeout: DATABASE_TIMEOUTS.queryMs,
        idle_in_transaction_session_timeout: DATABASE_IDLE_LIMITS.idleInTransactionMs,
        idleTimeoutMillis: DATABASE_IDLE_LIMITS.poolIdleMs,
        // Lets the kernel notice a peer that vanished while a pooled connection sat idle.
        keepAlive: true,
        // The list statement's LIMIT is an expression, which the planner estimates at a tenth of
        // the table: at a million blogs its cost passes jit_above_cost and PostgreSQL spent ~30 ms
        // compiling a plan that runs in under 1 ms. Every statement here is short: no JIT.
        options: '-c jit=off',
      },
    };
  }
  return { ...common, driver: createEmbeddedDriver(database.dataDir), poolSize: 1 };
}

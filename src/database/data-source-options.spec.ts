import type { DatabaseConfig } from '../config/database.config';
import {
  buildDataSourceOptions,
  buildMigrationDataSourceOptions,
  DATABASE_IDLE_LIMITS,
  DATABASE_TIMEOUTS,
  SESSION_SETTINGS,
} from './data-source-options';
import { ReadTimeoutClosingClient } from './read-timeout-closing-client';

const DIRECT = 'postgres://blog:pw@db:5432/blogs';
const POOLED = 'postgres://blog:pw@pgbouncer:6432/blogs';

/** The `pg` settings sent as startup parameters, which PgBouncer refuses (it accepts `application_name`). */
const STARTUP_PARAMETERS = ['statement_timeout', 'idle_in_transaction_session_timeout', 'options', 'lock_timeout'];

const config = (overrides: Partial<DatabaseConfig>): DatabaseConfig => ({
  url: DIRECT,
  migrationUrl: DIRECT,
  pooler: 'none',
  preparedStatements: true,
  readUrls: [],
  readMaxLagMs: 1_000,
  dataDir: './data',
  ...overrides,
});

describe('buildDataSourceOptions', () => {
  it('directly on PostgreSQL: the session settings go as startup parameters, beside the client-side bounds', () => {
    const options = buildDataSourceOptions(config({}));

    expect(options).toMatchObject({ url: DIRECT, poolSize: 10, applicationName: 'blog-service' });
    expect(options.extra).toEqual({
      Client: ReadTimeoutClosingClient,
      query_timeout: DATABASE_TIMEOUTS.queryMs,
      idleTimeoutMillis: DATABASE_IDLE_LIMITS.poolIdleMs,
      keepAlive: true,
      statement_timeout: 2_000,
      idle_in_transaction_session_timeout: 5_000,
      options: '-c jit=off',
    });
  });

  it('behind PgBouncer: no startup parameter PgBouncer refuses, the client-side bounds kept', () => {
    const options = buildDataSourceOptions(config({ url: POOLED, pooler: 'pgbouncer' }));

    expect(options).toMatchObject({ url: POOLED, poolSize: 10, applicationName: 'blog-service' });
    expect(options.extra).toEqual({
      Client: ReadTimeoutClosingClient,
      query_timeout: DATABASE_TIMEOUTS.queryMs,
      idleTimeoutMillis: DATABASE_IDLE_LIMITS.poolIdleMs,
      keepAlive: true,
    });
    expect(Object.keys(options.extra as object).filter((key) => STARTUP_PARAMETERS.includes(key))).toEqual([]);
  });

  it('the startup parameters are SESSION_SETTINGS, which start-up checks behind PgBouncer', () => {
    const extra = buildDataSourceOptions(config({})).extra as Record<string, unknown>;

    expect(SESSION_SETTINGS).toEqual({
      statement_timeout: String(extra.statement_timeout),
      idle_in_transaction_session_timeout: String(extra.idle_in_transaction_session_timeout),
      jit: 'off',
    });
    expect(extra.options).toBe(`-c jit=${SESSION_SETTINGS.jit}`);
  });
});

describe('buildMigrationDataSourceOptions', () => {
  it.each<[string, Partial<DatabaseConfig>]>([
    ['the embedded database', { url: undefined, migrationUrl: undefined }],
    ['DATABASE_MIGRATION_URL unset (the same direct server)', {}],
  ])("%s: none, migrations run on the service's own DataSource", (_name, overrides) => {
    expect(buildMigrationDataSourceOptions(config(overrides))).toBeUndefined();
  });

  it.each<[string, Partial<DatabaseConfig>]>([
    ['behind PgBouncer', { url: POOLED, pooler: 'pgbouncer' }],
    ['another URL (e.g. the schema owner)', { migrationUrl: 'postgres://owner:pw@db:5432/blogs' }],
  ])('%s: one direct connection on DATABASE_MIGRATION_URL, with the startup parameters', (_name, overrides) => {
    const database = config(overrides);
    const options = buildMigrationDataSourceOptions(database);

    expect(options).toMatchObject({ url: database.migrationUrl, poolSize: 1 });
    expect(options?.extra).toMatchObject({ statement_timeout: 2_000, options: '-c jit=off' });
  });
});

import { loadAuthConfig } from './auth.config';
import { loadDatabaseConfig } from './database.config';
import { loadHttpConfig } from './http.config';

/** Expects `load` to throw a ConfigValidationError whose message is one line naming `variable`. */
function expectRejected(load: () => unknown, variable: string): void {
  expect(load).toThrow(
    expect.objectContaining({
      name: 'ConfigValidationError',
      message: expect.stringMatching(new RegExp(`^Invalid configuration: .*${variable}.*$`)),
    }),
  );
}

describe('loadDatabaseConfig (also the TypeORM CLI: ormconfig.ts)', () => {
  const NO_REPLICAS = { readUrls: [], readMaxLagMs: 1_000 };
  const EMBEDDED = {
    url: undefined,
    migrationUrl: undefined,
    pooler: 'none',
    preparedStatements: false,
    ...NO_REPLICAS,
    dataDir: './data',
  };

  it('defaults to the embedded database in ./data', () => {
    expect(loadDatabaseConfig({})).toEqual(EMBEDDED);
  });

  it('reads DATABASE_URL (postgres:// or postgresql://) and DATA_DIR; migrations use DATABASE_URL by default', () => {
    expect(
      loadDatabaseConfig({ DATABASE_URL: 'postgres://user:pw@db:5432/blogs', DATA_DIR: '/var/lib/blogs' }),
    ).toEqual({
      url: 'postgres://user:pw@db:5432/blogs',
      migrationUrl: 'postgres://user:pw@db:5432/blogs',
      pooler: 'none',
      preparedStatements: true,
      ...NO_REPLICAS,
      dataDir: '/var/lib/blogs',
    });
    expect(loadDatabaseConfig({ DATABASE_URL: 'postgresql://localhost/blogs' }).url).toBe(
      'postgresql://localhost/blogs',
    );
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadDatabaseConfig({ DATABASE_URL: '' }).url).toBeUndefined();
  });

  it('needs no JWT_SECRET in production, where the auth namespace demands one', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/blogs' };

    expect(loadDatabaseConfig(env)).toEqual({
      url: 'postgres://db/blogs',
      migrationUrl: 'postgres://db/blogs',
      pooler: 'none',
      preparedStatements: true,
      ...NO_REPLICAS,
      dataDir: './data',
    });
    expectRejected(() => loadAuthConfig(env), 'JWT_SECRET');
  });

  it.each<[string, string, (env: NodeJS.ProcessEnv) => unknown]>([
    ['PORT', 'abc', loadHttpConfig],
    ['READS_REQUIRE_AUTH', 'yes', loadAuthConfig],
    ['JWT_SECRET', 'short', loadAuthConfig],
  ])('ignores %s=%p, which its own namespace rejects', (variable, value, load) => {
    expect(loadDatabaseConfig({ [variable]: value })).toEqual(EMBEDDED);
    expectRejected(() => load({ [variable]: value }), variable);
  });

  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'postgres://db/blogs with space'],
    ['DATABASE_MIGRATION_URL', 'mysql://x'],
    ['DATABASE_MIGRATION_URL', 'postgres://'],
    ['DATABASE_POOLER', 'pgpool'],
    ['DATABASE_POOLER', 'PgBouncer'],
    ['DATA_DIR', ''],
    ['NODE_ENV', 'staging'],
    ['DATABASE_READ_URLS', 'postgres://replica/blogs,mysql://x'],
    ['DATABASE_READ_URLS', Array.from({ length: 17 }, (_, i) => `postgres://replica-${i}/blogs`).join(',')],
    ['DATABASE_READ_MAX_LAG_MS', '99'],
    ['DATABASE_READ_MAX_LAG_MS', '1.5'],
    ['DATABASE_READ_MAX_LAG_MS', '3600001'],
  ])('rejects %s=%p with one line naming it', (variable, value) => {
    const server = { DATABASE_URL: 'postgres://db/blogs', DATABASE_MIGRATION_URL: 'postgres://db-direct/blogs' };
    expectRejected(() => loadDatabaseConfig({ NODE_ENV: 'production', ...server, [variable]: value }), variable);
  });

  it.each([
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL must be a postgres:// or postgresql:// URL'],
    ['DATA_DIR', '', 'DATA_DIR must not be empty'],
    ['NODE_ENV', 'staging', 'NODE_ENV must be one of the following values: development, production, test'],
    ['DATABASE_POOLER', 'pgpool', 'DATABASE_POOLER must be one of: none, pgbouncer'],
  ])('%s=%p: %s', (variable, value, message) => {
    expect(() => loadDatabaseConfig({ [variable]: value })).toThrow(`Invalid configuration: ${message}`);
  });

  describe('read replicas (DATABASE_READ_URLS, DATABASE_READ_MAX_LAG_MS)', () => {
    it.each<[NodeJS.ProcessEnv, readonly string[], number]>([
      [{}, [], 1_000],
      [{ DATABASE_READ_URLS: '', DATABASE_READ_MAX_LAG_MS: '250' }, [], 250],
      [
        { DATABASE_READ_URLS: ' postgres://r1/blogs, ,postgresql://r2:5433/blogs ' },
        ['postgres://r1/blogs', 'postgresql://r2:5433/blogs'],
        1_000,
      ],
    ])('%p: replicas %p, lag bound %p ms', (env, readUrls, readMaxLagMs) => {
      expect(loadDatabaseConfig({ DATABASE_URL: 'postgres://db/blogs', ...env })).toMatchObject({
        readUrls,
        readMaxLagMs,
      });
    });

    it('refuses replicas without DATABASE_URL with one line', () => {
      expect(() => loadDatabaseConfig({ DATABASE_READ_URLS: 'postgres://r1/blogs' })).toThrow(
        'Invalid configuration: DATABASE_READ_URLS needs DATABASE_URL (the embedded database has no replicas)',
      );
    });
  });

  describe('behind PgBouncer (DATABASE_POOLER, DATABASE_MIGRATION_URL)', () => {
    const POOLED = 'postgres://blog:pw@pgbouncer:6432/blogs';
    const DIRECT = 'postgres://blog:pw@db:5432/blogs';

    it('DATABASE_POOLER=pgbouncer with DATABASE_MIGRATION_URL: pooled service, direct migrations', () => {
      expect(
        loadDatabaseConfig({ DATABASE_URL: POOLED, DATABASE_POOLER: 'pgbouncer', DATABASE_MIGRATION_URL: DIRECT }),
      ).toEqual({
        url: POOLED,
        migrationUrl: DIRECT,
        pooler: 'pgbouncer',
        preparedStatements: false,
        ...NO_REPLICAS,
        dataDir: './data',
      });
    });

    it.each<[string, NodeJS.ProcessEnv, boolean]>([
      ['a direct connection', {}, true],
      ['a direct connection, the setting empty', { DATABASE_PREPARED_STATEMENTS: '' }, true],
      ['a direct connection that refuses them', { DATABASE_PREPARED_STATEMENTS: 'false' }, false],
      ['PgBouncer (before 1.21 they are lost between transactions)', { DATABASE_POOLER: 'pgbouncer' }, false],
      [
        'PgBouncer 1.21+ with max_prepared_statements',
        { DATABASE_POOLER: 'pgbouncer', DATABASE_PREPARED_STATEMENTS: 'true' },
        true,
      ],
    ])('named prepared statements on %s: %p', (_name, env, preparedStatements) => {
      const config = loadDatabaseConfig({ DATABASE_URL: POOLED, DATABASE_MIGRATION_URL: DIRECT, ...env });
      expect(config.preparedStatements).toBe(preparedStatements);
    });

    it.each([
      [{ DATABASE_POOLER: 'none' }, 'none'],
      [{ DATABASE_POOLER: '' }, 'none'],
      [{}, 'none'],
    ])('%p: pooler %p', (env, pooler) => {
      expect(loadDatabaseConfig({ DATABASE_URL: DIRECT, ...env }).pooler).toBe(pooler);
    });

    it('DATABASE_MIGRATION_URL may name another role (the schema owner) without a pooler', () => {
      const owner = 'postgres://blog_owner:pw@db:5432/blogs';
      expect(loadDatabaseConfig({ DATABASE_URL: DIRECT, DATABASE_MIGRATION_URL: owner })).toEqual({
        url: DIRECT,
        migrationUrl: owner,
        pooler: 'none',
        preparedStatements: true,
        ...NO_REPLICAS,
        dataDir: './data',
      });
    });

    it.each<[string, NodeJS.ProcessEnv, string]>([
      [
        'DATABASE_POOLER=pgbouncer without DATABASE_MIGRATION_URL',
        { DATABASE_URL: POOLED, DATABASE_POOLER: 'pgbouncer' },
        'DATABASE_POOLER=pgbouncer needs DATABASE_MIGRATION_URL, a direct connection to PostgreSQL: ' +
          'the migration lock is a session lock, which transaction pooling does not keep',
      ],
      [
        'DATABASE_POOLER=pgbouncer without DATABASE_URL',
        { DATABASE_POOLER: 'pgbouncer', DATABASE_MIGRATION_URL: DIRECT },
        'DATABASE_POOLER=pgbouncer needs DATABASE_URL (the embedded database has no server)',
      ],
      [
        'DATABASE_MIGRATION_URL without DATABASE_URL',
        { DATABASE_MIGRATION_URL: DIRECT },
        'DATABASE_MIGRATION_URL needs DATABASE_URL (the embedded database has no server)',
      ],
      [
        'DATABASE_PREPARED_STATEMENTS without DATABASE_URL',
        { DATABASE_PREPARED_STATEMENTS: 'true' },
        'DATABASE_PREPARED_STATEMENTS needs DATABASE_URL (the embedded database has no server)',
      ],
      [
        'DATABASE_PREPARED_STATEMENTS=yes',
        { DATABASE_URL: DIRECT, DATABASE_PREPARED_STATEMENTS: 'yes' },
        'DATABASE_PREPARED_STATEMENTS must be "true" or "false"',
      ],
    ])('%s is refused with one line', (_name, env, message) => {
      expect(() => loadDatabaseConfig(env)).toThrow(
        expect.objectContaining({ name: 'ConfigValidationError', message: `Invalid configuration: ${message}` }),
      );
    });
  });
});

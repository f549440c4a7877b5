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
  it('defaults to the embedded database in ./data', () => {
    expect(loadDatabaseConfig({})).toEqual({ url: undefined, dataDir: './data' });
  });

  it('reads DATABASE_URL (postgres:// or postgresql://) and DATA_DIR', () => {
    expect(
      loadDatabaseConfig({ DATABASE_URL: 'postgres://user:pw@db:5432/blogs', DATA_DIR: '/var/lib/blogs' }),
    ).toEqual({ url: 'postgres://user:pw@db:5432/blogs', dataDir: '/var/lib/blogs' });
    expect(loadDatabaseConfig({ DATABASE_URL: 'postgresql://localhost/blogs' }).url).toBe(
      'postgresql://localhost/blogs',
    );
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadDatabaseConfig({ DATABASE_URL: '' }).url).toBeUndefined();
  });

  it('needs no JWT_SECRET in production, where the auth namespace demands one', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/blogs' };

    expect(loadDatabaseConfig(env)).toEqual({ url: 'postgres://db/blogs', dataDir: './data' });
    expectRejected(() => loadAuthConfig(env), 'JWT_SECRET');
  });

  it.each<[string, string, (env: NodeJS.ProcessEnv) => unknown]>([
    ['PORT', 'abc', loadHttpConfig],
    ['READS_REQUIRE_AUTH', 'yes', loadAuthConfig],
    ['JWT_SECRET', 'short', loadAuthConfig],
  ])('ignores %s=%p, which its own namespace rejects', (variable, value, load) => {
    expect(loadDatabaseConfig({ [variable]: value })).toEqual({ url: undefined, dataDir: './data' });
    expectRejected(() => load({ [variable]: value }), variable);
  });

  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'postgres://db/blogs with space'],
    ['DATA_DIR', ''],
    ['NODE_ENV', 'staging'],
  ])('rejects %s=%p with one line naming it', (variable, value) => {
    expectRejected(() => loadDatabaseConfig({ NODE_ENV: 'production', [variable]: value }), variable);
  });

  it.each([
    ['DATABASE_URL', 'mysql://x', 'DATABASE_URL must be a postgres:// or postgresql:// URL'],
    ['DATA_DIR', '', 'DATA_DIR must not be empty'],
    ['NODE_ENV', 'staging', 'NODE_ENV must be one of the following values: development, production, test'],
  ])('%s=%p: %s', (variable, value, message) => {
    expect(() => loadDatabaseConfig({ [variable]: value })).toThrow(`Invalid configuration: ${message}`);
  });
});

import { ConfigValidationError, loadAppConfig, loadDatabaseConfig, MIN_JWT_SECRET_BYTES } from './environment';

const SECRET_32 = 'x'.repeat(32);

/** Runs `load` (loadAppConfig by default) and returns the ConfigValidationError it threw (failing when it did not). */
function configError(
  env: NodeJS.ProcessEnv,
  load: (env: NodeJS.ProcessEnv) => unknown = loadAppConfig,
): ConfigValidationError {
  let caught: unknown;
  try {
    load(env);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ConfigValidationError);
  return caught as ConfigValidationError;
}

function expectOneLineNaming(error: ConfigValidationError, variable: string): void {
  expect(error.message).toContain(variable);
  expect(error.message).not.toMatch(/[\r\n]/);
  expect(error.message.trim()).not.toBe('');
}

describe('loadAppConfig', () => {
  describe('defaults', () => {
    it('uses port 3000, ./data, readsRequireAuth=false, development, no database URL', () => {
      const config = loadAppConfig({});

      expect(config.port).toBe(3000);
      expect(config.database).toEqual({ url: undefined, dataDir: './data' });
      expect(config.readsRequireAuth).toBe(false);
      expect(config.nodeEnv).toBe('development');
      expect(config.jwt.issuer).toBeUndefined();
      expect(config.jwt.audience).toBeUndefined();
    });

    it('generates a secret of at least 32 bytes and marks it as generated', () => {
      const config = loadAppConfig({});

      expect(config.jwt.secretGenerated).toBe(true);
      expect(typeof config.jwt.secret).toBe('string');
      expect(Buffer.byteLength(config.jwt.secret ?? '', 'utf8')).toBeGreaterThanOrEqual(MIN_JWT_SECRET_BYTES);
      expect(MIN_JWT_SECRET_BYTES).toBe(32);
    });

    it('generates a different secret each time (random, not a constant)', () => {
      expect(loadAppConfig({}).jwt.secret).not.toBe(loadAppConfig({}).jwt.secret);
    });

    it('ignores unknown variables', () => {
      expect(() => loadAppConfig({ SOMETHING_ELSE: 'whatever', HOME: '/root' })).not.toThrow();
    });
  });

  describe('valid values', () => {
    it('reads every variable', () => {
      const config = loadAppConfig({
        NODE_ENV: 'production',
        PORT: '8080',
        DATABASE_URL: 'postgres://user:pw@db:5432/blogs',
        DATA_DIR: '/var/lib/blogs',
        JWT_SECRET: SECRET_32,
        JWT_ISSUER: 'https://idp.example',
        JWT_AUDIENCE: 'blog-service',
        READS_REQUIRE_AUTH: 'true',
        LOG_LEVEL: 'warn',
        RATE_LIMIT_ENABLED: 'false',
        RATE_LIMIT_WINDOW_SECONDS: '10',
        RATE_LIMIT_READS: '100',
        RATE_LIMIT_WRITES: '5',
        REDIS_URL: 'redis://cache:6379/0',
        RATE_LIMIT_REDIS_PREFIX: 'blogs:rl:',
        TRUST_PROXY: '1',
        CORS_ORIGINS: 'https://app.example, http://localhost:5173',
        SHUTDOWN_TIMEOUT_MS: '2500',
      });

      expect(config).toEqual({
        nodeEnv: 'production',
        port: 8080,
        database: { url: 'postgres://user:pw@db:5432/blogs', dataDir: '/var/lib/blogs' },
        jwt: {
          secret: SECRET_32,
          secretGenerated: false,
          issuer: 'https://idp.example',
          audience: 'blog-service',
          jwksUri: undefined,
          jwksCooldownMs: 10_000,
          algorithms: ['HS256'],
        },
        readsRequireAuth: true,
        logLevel: 'warn',
        rateLimit: {
          enabled: false,
          windowSeconds: 10,
          reads: 100,
          writes: 5,
          redisUrl: 'redis://cache:6379/0',
          redisPrefix: 'blogs:rl:',
        },
        trustProxy: 1,
        corsOrigins: ['https://app.example', 'http://localhost:5173'],
        shutdownTimeoutMs: 2500,
      });
    });

    it('rate limits default to on, 6000 reads and 600 writes per 60 s, in memory; TRUST_PROXY off; CORS closed', () => {
      const config = loadAppConfig({});
      expect(config.rateLimit).toEqual({
        enabled: true,
        windowSeconds: 60,
        reads: 6000,
        writes: 600,
        redisUrl: undefined,
        redisPrefix: 'blog-service:rate-limit:',
      });
      expect(config.trustProxy).toBe(false);
      expect(config.corsOrigins).toEqual([]);
      expect(loadAppConfig({ CORS_ORIGINS: '' }).corsOrigins).toEqual([]);
      expect(loadAppConfig({ REDIS_URL: '' }).rateLimit.redisUrl).toBeUndefined();
    });

    it.each<[string, unknown]>([
      ['true', true],
      ['false', false],
      ['0', 0],
      ['2', 2],
      ['loopback', ['loopback']],
      ['loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7', ['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']],
    ])('TRUST_PROXY=%p is %p for Express', (value, expected) => {
      expect(loadAppConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
    });

    it('LOG_LEVEL defaults to info, and to silent when NODE_ENV=test; an empty value is unset', () => {
      expect(loadAppConfig({}).logLevel).toBe('info');
      expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET_32 }).logLevel).toBe('info');
      expect(loadAppConfig({ NODE_ENV: 'test' }).logLevel).toBe('silent');
      expect(loadAppConfig({ NODE_ENV: 'test', LOG_LEVEL: 'debug' }).logLevel).toBe('debug');
      expect(loadAppConfig({ LOG_LEVEL: '' }).logLevel).toBe('info');
    });

    it.each(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])('accepts LOG_LEVEL=%s', (level) => {
      expect(loadAppConfig({ LOG_LEVEL: level }).logLevel).toBe(level);
    });

    it('SHUTDOWN_TIMEOUT_MS defaults to 10000 and accepts its bounds 0 and 600000', () => {
      expect(loadAppConfig({}).shutdownTimeoutMs).toBe(10_000);
      expect(loadAppConfig({ SHUTDOWN_TIMEOUT_MS: '0' }).shutdownTimeoutMs).toBe(0);
      expect(loadAppConfig({ SHUTDOWN_TIMEOUT_MS: '600000' }).shutdownTimeoutMs).toBe(600_000);
    });

    it('accepts postgresql:// URLs', () => {
      expect(loadAppConfig({ DATABASE_URL: 'postgresql://localhost/blogs' }).database.url).toBe(
        'postgresql://localhost/blogs',
      );
    });

    it('treats an empty DATABASE_URL as unset', () => {
      expect(loadAppConfig({ DATABASE_URL: '' }).database.url).toBeUndefined();
    });

    it('parses READS_REQUIRE_AUTH=true and READS_REQUIRE_AUTH=false as booleans', () => {
      expect(loadAppConfig({ READS_REQUIRE_AUTH: 'true' }).readsRequireAuth).toBe(true);
      expect(loadAppConfig({ READS_REQUIRE_AUTH: 'false' }).readsRequireAuth).toBe(false);
    });

    it('accepts the port bounds 0 and 65535', () => {
      expect(loadAppConfig({ PORT: '0' }).port).toBe(0);
      expect(loadAppConfig({ PORT: '65535' }).port).toBe(65535);
    });

    it('accepts NODE_ENV test and production (with a secret)', () => {
      expect(loadAppConfig({ NODE_ENV: 'test' }).nodeEnv).toBe('test');
      expect(loadAppConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET_32 }).nodeEnv).toBe('production');
    });

    it('accepts a JWT_SECRET of exactly 32 ASCII bytes and does not mark it generated', () => {
      const config = loadAppConfig({ JWT_SECRET: SECRET_32 });

      expect(config.jwt.secret).toBe(SECRET_32);
      expect(config.jwt.secretGenerated).toBe(false);
    });

    it('counts JWT_SECRET in UTF-8 bytes: 11 three-byte characters (33 bytes) are accepted', () => {
      const secret = '€'.repeat(11);
      expect(secret.length).toBe(11);

      expect(loadAppConfig({ JWT_SECRET: secret }).jwt.secret).toBe(secret);
    });

    it('treats an empty JWT_SECRET as unset (generated in development)', () => {
      expect(loadAppConfig({ JWT_SECRET: '' }).jwt.secretGenerated).toBe(true);
    });
  });

  describe('invalid values throw ConfigValidationError with one line naming the variable', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '70000'],
      ['PORT', '65536'],
      ['PORT', '-1'],
      ['PORT', '1.5'],
      ['PORT', '080'],
      ['SHUTDOWN_TIMEOUT_MS', '600001'],
      ['SHUTDOWN_TIMEOUT_MS', '-1'],
      ['SHUTDOWN_TIMEOUT_MS', '10s'],
      ['SHUTDOWN_TIMEOUT_MS', '1.5'],
      ['SHUTDOWN_TIMEOUT_MS', '010'],
      ['JWT_JWKS_COOLDOWN_MS', '99'],
      ['JWT_JWKS_COOLDOWN_MS', '600001'],
      ['JWT_JWKS_COOLDOWN_MS', '1s'],
      ['READS_REQUIRE_AUTH', 'yes'],
      ['READS_REQUIRE_AUTH', 'TRUE'],
      ['READS_REQUIRE_AUTH', '1'],
      ['DATABASE_URL', 'mysql://x'],
      ['DATABASE_URL', 'postgres://'],
      ['NODE_ENV', 'staging'],
      ['DATA_DIR', ''],
      ['LOG_LEVEL', 'verbose'],
      ['LOG_LEVEL', 'INFO'],
      ['RATE_LIMIT_ENABLED', 'off'],
      ['RATE_LIMIT_WINDOW_SECONDS', '0'],
      ['RATE_LIMIT_WINDOW_SECONDS', '86401'],
      ['RATE_LIMIT_READS', '0'],
      ['RATE_LIMIT_READS', '1e3'],
      ['RATE_LIMIT_WRITES', '-1'],
      ['RATE_LIMIT_WRITES', '1000001'],
      ['REDIS_URL', 'http://cache:6379'],
      ['RATE_LIMIT_REDIS_PREFIX', 'has space'],
      ['TRUST_PROXY', 'yes'],
      ['TRUST_PROXY', '10.0.0.0/33'],
      ['TRUST_PROXY', '10.0.0.300'],
      ['TRUST_PROXY', 'loopback,'],
      ['CORS_ORIGINS', '*'],
      ['CORS_ORIGINS', 'https://app.example/path'],
      ['CORS_ORIGINS', 'app.example'],
    ])('%s=%p', (variable, value) => {
      const error = configError({ [variable]: value });

      expectOneLineNaming(error, variable);
      expect(error.name).toBe('ConfigValidationError');
      expect(error).toBeInstanceOf(Error);
    });

    it('JWT_SECRET shorter than 32 bytes (31 ASCII characters)', () => {
      expectOneLineNaming(configError({ JWT_SECRET: 'x'.repeat(31) }), 'JWT_SECRET');
    });

    it('JWT_SECRET of 30 bytes written as 10 three-byte characters', () => {
      expectOneLineNaming(configError({ JWT_SECRET: '€'.repeat(10) }), 'JWT_SECRET');
    });

    it('JWT_SECRET too short also in production', () => {
      expectOneLineNaming(configError({ NODE_ENV: 'production', JWT_SECRET: 'short' }), 'JWT_SECRET');
    });

    it('NODE_ENV=production without JWT_SECRET', () => {
      expectOneLineNaming(configError({ NODE_ENV: 'production' }), 'JWT_SECRET');
    });

    it('NODE_ENV=production with an empty JWT_SECRET', () => {
      expectOneLineNaming(configError({ NODE_ENV: 'production', JWT_SECRET: '' }), 'JWT_SECRET');
    });

    it('does not put the secret value into the message', () => {
      const secret = 'tooshort-s3cr3t';
      expect(configError({ JWT_SECRET: secret }).message).not.toContain(secret);
    });
  });
});

describe('loadAppConfig: JWT_SECRET, JWT_JWKS_URI and JWT_ALGORITHMS', () => {
  const JWKS = 'https://idp.example/.well-known/jwks.json';

  it('HS256 only, with JWT_SECRET alone (the default)', () => {
    expect(loadAppConfig({ JWT_SECRET: SECRET_32 }).jwt).toEqual({
      secret: SECRET_32,
      secretGenerated: false,
      issuer: undefined,
      audience: undefined,
      jwksUri: undefined,
      jwksCooldownMs: 10_000,
      algorithms: ['HS256'],
    });
    expect(loadAppConfig({}).jwt.algorithms).toEqual(['HS256']);
  });

  it('RS256 and ES256 with JWT_JWKS_URI alone: no secret is made, none is needed in production', () => {
    const config = loadAppConfig({ NODE_ENV: 'production', JWT_JWKS_URI: JWKS });
    expect(config.jwt).toEqual({
      secret: undefined,
      secretGenerated: false,
      issuer: undefined,
      audience: undefined,
      jwksUri: JWKS,
      jwksCooldownMs: 10_000,
      algorithms: ['RS256', 'ES256'],
    });
    expect(loadAppConfig({ JWT_JWKS_URI: JWKS }).jwt.secret).toBeUndefined();
    expect(loadAppConfig({ JWT_JWKS_URI: JWKS, JWT_JWKS_COOLDOWN_MS: '500' }).jwt.jwksCooldownMs).toBe(500);
  });

  it('both: HS256, RS256 and ES256; JWT_ALGORITHMS narrows (duplicates and spaces ignored)', () => {
    expect(loadAppConfig({ JWT_SECRET: SECRET_32, JWT_JWKS_URI: JWKS }).jwt.algorithms).toEqual([
      'HS256',
      'RS256',
      'ES256',
    ]);
    expect(
      loadAppConfig({ JWT_SECRET: SECRET_32, JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: ' RS256 , RS256' }).jwt.algorithms,
    ).toEqual(['RS256']);
    expect(loadAppConfig({ JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: 'ES256,PS256' }).jwt.algorithms).toEqual([
      'ES256',
      'PS256',
    ]);
    expect(loadAppConfig({ JWT_SECRET: SECRET_32, JWT_ALGORITHMS: '' }).jwt.algorithms).toEqual(['HS256']);
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['an HMAC algorithm without JWT_SECRET', { JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: 'HS256' }, 'JWT_ALGORITHMS'],
    [
      'a public-key algorithm without JWT_JWKS_URI',
      { JWT_SECRET: SECRET_32, JWT_ALGORITHMS: 'RS256' },
      'JWT_ALGORITHMS',
    ],
    ['an unknown algorithm', { JWT_SECRET: SECRET_32, JWT_ALGORITHMS: 'HS256,none' }, 'JWT_ALGORITHMS'],
    ['a JWKS URI that is no http(s) URL', { JWT_JWKS_URI: 'ftp://idp.example/jwks' }, 'JWT_JWKS_URI'],
    ['production with neither JWT_SECRET nor JWT_JWKS_URI', { NODE_ENV: 'production' }, 'JWT_SECRET'],
    [
      'an http:// JWKS URI in production',
      { NODE_ENV: 'production', JWT_JWKS_URI: 'http://idp.example/jwks' },
      'JWT_JWKS_URI',
    ],
  ])('rejects %s with one line naming the variable', (_name, env, variable) => {
    expectOneLineNaming(configError(env), variable);
  });
});

describe('loadDatabaseConfig (the TypeORM CLI: ormconfig.ts)', () => {
  it('defaults to the embedded database in ./data', () => {
    expect(loadDatabaseConfig({})).toEqual({ url: undefined, dataDir: './data' });
  });

  it('reads DATABASE_URL and DATA_DIR, like the database section of loadAppConfig', () => {
    const env = { DATABASE_URL: 'postgresql://user:pw@db:5432/blogs', DATA_DIR: '/var/lib/blogs' };

    expect(loadDatabaseConfig(env)).toEqual({ url: 'postgresql://user:pw@db:5432/blogs', dataDir: '/var/lib/blogs' });
    expect(loadDatabaseConfig(env)).toEqual(loadAppConfig(env).database);
  });

  it('treats an empty DATABASE_URL as unset', () => {
    expect(loadDatabaseConfig({ DATABASE_URL: '' }).url).toBeUndefined();
  });

  it('needs no JWT_SECRET in production, where loadAppConfig demands one', () => {
    const env = { NODE_ENV: 'production', DATABASE_URL: 'postgres://db/blogs' };

    expect(loadDatabaseConfig(env)).toEqual({ url: 'postgres://db/blogs', dataDir: './data' });
    expectOneLineNaming(configError(env), 'JWT_SECRET');
  });

  it.each([
    ['PORT', 'abc'],
    ['READS_REQUIRE_AUTH', 'yes'],
    ['JWT_SECRET', 'short'],
  ])('ignores the service-only variable %s=%p, which loadAppConfig rejects', (variable, value) => {
    expect(loadDatabaseConfig({ [variable]: value })).toEqual({ url: undefined, dataDir: './data' });
    expectOneLineNaming(configError({ [variable]: value }), variable);
  });

  it.each([
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'postgres://db/blogs with space'],
    ['DATA_DIR', ''],
    ['NODE_ENV', 'staging'],
  ])('rejects %s=%p with a one-line ConfigValidationError naming it', (variable, value) => {
    const error = configError({ NODE_ENV: 'production', [variable]: value }, loadDatabaseConfig);

    expectOneLineNaming(error, variable);
    expect(error.message).toMatch(/^Invalid configuration: /);
    expect(error.name).toBe('ConfigValidationError');
  });
});

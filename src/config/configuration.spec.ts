import { ENVIRONMENT_VARIABLES, loadConfiguration } from './configuration';

const SECRET_32 = 'x'.repeat(32);

describe('loadConfiguration', () => {
  it('reads every variable into its namespace', () => {
    const config = loadConfiguration({
      NODE_ENV: 'production',
      PORT: '8080',
      DATABASE_URL: 'postgres://user:pw@pgbouncer:6432/blogs',
      DATABASE_MIGRATION_URL: 'postgres://user:pw@db:5432/blogs',
      DATABASE_POOLER: 'pgbouncer',
      DATABASE_READ_URLS: 'postgres://user:pw@replica:5432/blogs',
      DATABASE_READ_MAX_LAG_MS: '500',
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
      PUBLIC_URL: 'https://api.blog.example',
      JOBS_ENABLED: 'false',
      WEBHOOK_ALLOWED_HOSTS: 'Receiver.test, ::1',
      CACHE_MAX_AGE: '30',
      CACHE_SHARED_MAX_AGE: '600',
      CACHE_PURGE_URLS: 'http://varnish:80, https://purge.example/cdn/',
      CACHE_PURGE_TOKEN: 'c'.repeat(40),
      REVISIONS_KEPT: '200',
      SITE_URL: 'https://blog.example',
      SITE_TITLE: 'Notes',
      FEED_SIZE: '50',
      SITEMAP_SIZE: '1000',
    });

    expect(config).toEqual({
      http: {
        port: 8080,
        host: '127.0.0.1',
        trustProxy: 1,
        corsOrigins: ['https://app.example', 'http://localhost:5173'],
        shutdownTimeoutMs: 2500,
        publicUrl: 'https://api.blog.example',
      },
      database: {
        url: 'postgres://user:pw@pgbouncer:6432/blogs',
        migrationUrl: 'postgres://user:pw@db:5432/blogs',
        pooler: 'pgbouncer',
        preparedStatements: false,
        readUrls: ['postgres://user:pw@replica:5432/blogs'],
        readMaxLagMs: 500,
        dataDir: '/var/lib/blogs',
      },
      auth: {
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
      },
      cursor: { key: expect.any(Buffer), keySource: 'JWT_SECRET' },
      logging: { level: 'warn', nodeEnv: 'production' },
      rateLimit: {
        enabled: false,
        windowSeconds: 10,
        reads: 100,
        writes: 5,
        redisUrl: 'redis://cache:6379/0',
        redisPrefix: 'blogs:rl:',
      },
      jobs: { enabled: false, webhookAllowedHosts: ['receiver.test', '::1'] },
      cache: {
        maxAge: 30,
        sharedMaxAge: 600,
        purgeUrls: ['http://varnish/', 'https://purge.example/cdn/'],
        purgeToken: 'c'.repeat(40),
      },
      revisions: { kept: 200 },
      feeds: { siteUrl: 'https://blog.example', siteTitle: 'Notes', feedSize: 50, sitemapSize: 1000 },
    });
  });

  it('ignores unknown variables', () => {
    expect(() => loadConfiguration({ SOMETHING_ELSE: 'whatever', HOME: '/root' })).not.toThrow();
  });

  it.each([
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://x'],
    ['JWT_SECRET', 'short'],
    ['CURSOR_SECRET', 'short'],
    ['LOG_LEVEL', 'verbose'],
    ['RATE_LIMIT_READS', '0'],
    ['JOBS_ENABLED', 'yes'],
    ['REVISIONS_KEPT', '0'],
    ['WEBHOOK_ALLOWED_HOSTS', 'https://receiver.test'],
    ['CACHE_SHARED_MAX_AGE', '-1'],
  ])('validates every namespace: %s=%p is rejected', (variable, value) => {
    expect(() => loadConfiguration({ [variable]: value })).toThrow(
      expect.objectContaining({ name: 'ConfigValidationError', message: expect.stringContaining(variable) }),
    );
  });
});

describe('ENVIRONMENT_VARIABLES', () => {
  it('lists every variable of every namespace once, sorted', () => {
    expect(ENVIRONMENT_VARIABLES).toEqual([
      'CACHE_MAX_AGE',
      'CACHE_PURGE_TOKEN',
      'CACHE_PURGE_URLS',
      'CACHE_SHARED_MAX_AGE',
      'CORS_ORIGINS',
      'CURSOR_SECRET',
      'DATABASE_MIGRATION_URL',
      'DATABASE_POOLER',
      'DATABASE_PREPARED_STATEMENTS',
      'DATABASE_READ_MAX_LAG_MS',
      'DATABASE_READ_URLS',
      'DATABASE_URL',
      'DATA_DIR',
      'FEED_SIZE',
      'HOST',
      'JOBS_ENABLED',
      'JWT_ALGORITHMS',
      'JWT_AUDIENCE',
      'JWT_ISSUER',
      'JWT_JWKS_COOLDOWN_MS',
      'JWT_JWKS_URI',
      'JWT_SECRET',
      'LOG_LEVEL',
      'NODE_ENV',
      'PORT',
      'PUBLIC_URL',
      'RATE_LIMIT_ENABLED',
      'RATE_LIMIT_READS',
      'RATE_LIMIT_REDIS_PREFIX',
      'RATE_LIMIT_WINDOW_SECONDS',
      'RATE_LIMIT_WRITES',
      'READS_REQUIRE_AUTH',
      'REDIS_URL',
      'REVISIONS_KEPT',
      'SHUTDOWN_TIMEOUT_MS',
      'SITEMAP_SIZE',
      'SITE_TITLE',
      'SITE_URL',
      'TRUST_PROXY',
      'WEBHOOK_ALLOWED_HOSTS',
    ]);
  });
});

import { loadRateLimitConfig } from './rate-limit.config';

describe('loadRateLimitConfig', () => {
  it('defaults to on, 6000 reads and 600 writes per 60 s, in memory', () => {
    expect(loadRateLimitConfig({})).toEqual({
      enabled: true,
      windowSeconds: 60,
      reads: 6000,
      writes: 600,
      redisUrl: undefined,
      redisPrefix: 'blog-service:rate-limit:',
    });
    expect(loadRateLimitConfig({ REDIS_URL: '' }).redisUrl).toBeUndefined();
  });

  it('reads every variable', () => {
    expect(
      loadRateLimitConfig({
        RATE_LIMIT_ENABLED: 'false',
        RATE_LIMIT_WINDOW_SECONDS: '10',
        RATE_LIMIT_READS: '100',
        RATE_LIMIT_WRITES: '5',
        REDIS_URL: 'redis://cache:6379/0',
        RATE_LIMIT_REDIS_PREFIX: 'blogs:rl:',
      }),
    ).toEqual({
      enabled: false,
      windowSeconds: 10,
      reads: 100,
      writes: 5,
      redisUrl: 'redis://cache:6379/0',
      redisPrefix: 'blogs:rl:',
    });
  });

  it.each<[string, string, string]>([
    ['RATE_LIMIT_ENABLED', 'off', 'RATE_LIMIT_ENABLED must be "true" or "false"'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0', 'RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and 86400'],
    ['RATE_LIMIT_WINDOW_SECONDS', '86401', 'RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and 86400'],
    ['RATE_LIMIT_READS', '0', 'RATE_LIMIT_READS must be an integer between 1 and 1000000'],
    ['RATE_LIMIT_READS', '1e3', 'RATE_LIMIT_READS must be an integer between 1 and 1000000'],
    ['RATE_LIMIT_WRITES', '-1', 'RATE_LIMIT_WRITES must be an integer between 1 and 1000000'],
    ['RATE_LIMIT_WRITES', '1000001', 'RATE_LIMIT_WRITES must be an integer between 1 and 1000000'],
    ['REDIS_URL', 'http://cache:6379', 'REDIS_URL must be a redis:// or rediss:// URL'],
    [
      'RATE_LIMIT_REDIS_PREFIX',
      'has space',
      'RATE_LIMIT_REDIS_PREFIX must be 1–64 characters of letters, digits and : . _ -',
    ],
  ])('rejects %s=%p: %s', (variable, value, message) => {
    expect(() => loadRateLimitConfig({ [variable]: value })).toThrow(
      expect.objectContaining({ name: 'ConfigValidationError', message: `Invalid configuration: ${message}` }),
    );
  });
});

import { MIN_JWT_SECRET_BYTES } from '../auth/jwt-algorithms';
import { loadAuthConfig } from './auth.config';

const SECRET_32 = 'x'.repeat(32);
const JWKS = 'https://idp.example/.well-known/jwks.json';

/** Expects `load` to throw a ConfigValidationError whose message is one line naming `variable`. */
function expectRejected(load: () => unknown, variable: string): void {
  expect(load).toThrow(
    expect.objectContaining({
      name: 'ConfigValidationError',
      message: expect.stringMatching(new RegExp(`^Invalid configuration: .*${variable}.*$`)),
    }),
  );
}

describe('loadAuthConfig', () => {
  it('defaults: reads need no token; no issuer or audience', () => {
    const config = loadAuthConfig({});
    expect(config.readsRequireAuth).toBe(false);
    expect(config.jwt.issuer).toBeUndefined();
    expect(config.jwt.audience).toBeUndefined();
  });

  it('generates a random secret of at least 32 bytes, marked as generated, when none is set', () => {
    const config = loadAuthConfig({});

    expect(config.jwt.secretGenerated).toBe(true);
    expect(typeof config.jwt.secret).toBe('string');
    expect(Buffer.byteLength(config.jwt.secret ?? '', 'utf8')).toBeGreaterThanOrEqual(MIN_JWT_SECRET_BYTES);
    expect(MIN_JWT_SECRET_BYTES).toBe(32);
    expect(loadAuthConfig({}).jwt.secret).not.toBe(loadAuthConfig({}).jwt.secret);
    expect(loadAuthConfig({ JWT_SECRET: '' }).jwt.secretGenerated).toBe(true);
  });

  it('reads every variable', () => {
    expect(
      loadAuthConfig({
        NODE_ENV: 'production',
        JWT_SECRET: SECRET_32,
        JWT_ISSUER: 'https://idp.example',
        JWT_AUDIENCE: 'blog-service',
        READS_REQUIRE_AUTH: 'true',
      }),
    ).toEqual({
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
    });
  });

  it('parses READS_REQUIRE_AUTH=true and READS_REQUIRE_AUTH=false as booleans', () => {
    expect(loadAuthConfig({ READS_REQUIRE_AUTH: 'true' }).readsRequireAuth).toBe(true);
    expect(loadAuthConfig({ READS_REQUIRE_AUTH: 'false' }).readsRequireAuth).toBe(false);
  });

  it('accepts NODE_ENV test, and production with a secret', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'test' })).not.toThrow();
    expect(() => loadAuthConfig({ NODE_ENV: 'production', JWT_SECRET: SECRET_32 })).not.toThrow();
  });

  it('counts JWT_SECRET in UTF-8 bytes: exactly 32 ASCII bytes, or 11 three-byte characters, are accepted', () => {
    expect(loadAuthConfig({ JWT_SECRET: SECRET_32 }).jwt).toMatchObject({ secret: SECRET_32, secretGenerated: false });
    const secret = '€'.repeat(11);
    expect(secret.length).toBe(11);
    expect(loadAuthConfig({ JWT_SECRET: secret }).jwt.secret).toBe(secret);
  });

  it('HS256 only, with JWT_SECRET alone (the default)', () => {
    expect(loadAuthConfig({ JWT_SECRET: SECRET_32 }).jwt).toEqual({
      secret: SECRET_32,
      secretGenerated: false,
      issuer: undefined,
      audience: undefined,
      jwksUri: undefined,
      jwksCooldownMs: 10_000,
      algorithms: ['HS256'],
    });
    expect(loadAuthConfig({}).jwt.algorithms).toEqual(['HS256']);
  });

  it('RS256 and ES256 with JWT_JWKS_URI alone: no secret is made, none is needed in production', () => {
    expect(loadAuthConfig({ NODE_ENV: 'production', JWT_JWKS_URI: JWKS }).jwt).toEqual({
      secret: undefined,
      secretGenerated: false,
      issuer: undefined,
      audience: undefined,
      jwksUri: JWKS,
      jwksCooldownMs: 10_000,
      algorithms: ['RS256', 'ES256'],
    });
    expect(loadAuthConfig({ JWT_JWKS_URI: JWKS }).jwt.secret).toBeUndefined();
    expect(loadAuthConfig({ JWT_JWKS_URI: JWKS, JWT_JWKS_COOLDOWN_MS: '500' }).jwt.jwksCooldownMs).toBe(500);
  });

  it.each<[NodeJS.ProcessEnv, string[]]>([
    [{ JWT_SECRET: SECRET_32, JWT_JWKS_URI: JWKS }, ['HS256', 'RS256', 'ES256']],
    [{ JWT_SECRET: SECRET_32, JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: ' RS256 , RS256' }, ['RS256']],
    [{ JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: 'ES256,PS256' }, ['ES256', 'PS256']],
    [{ JWT_SECRET: SECRET_32, JWT_ALGORITHMS: '' }, ['HS256']],
  ])(
    'both keys allow all defaults; JWT_ALGORITHMS narrows (duplicates and spaces ignored): %p → %p',
    (env, algorithms) => {
      expect(loadAuthConfig(env).jwt.algorithms).toEqual(algorithms);
    },
  );

  it.each<[string, NodeJS.ProcessEnv, string]>([
    ['READS_REQUIRE_AUTH=yes', { READS_REQUIRE_AUTH: 'yes' }, 'READS_REQUIRE_AUTH must be "true" or "false"'],
    ['READS_REQUIRE_AUTH=TRUE', { READS_REQUIRE_AUTH: 'TRUE' }, 'READS_REQUIRE_AUTH must be "true" or "false"'],
    ['READS_REQUIRE_AUTH=1', { READS_REQUIRE_AUTH: '1' }, 'READS_REQUIRE_AUTH must be "true" or "false"'],
    [
      'JWT_JWKS_COOLDOWN_MS=99',
      { JWT_JWKS_COOLDOWN_MS: '99' },
      'JWT_JWKS_COOLDOWN_MS must be an integer number of milliseconds between 100 and 600000',
    ],
    [
      'JWT_JWKS_COOLDOWN_MS=600001',
      { JWT_JWKS_COOLDOWN_MS: '600001' },
      'JWT_JWKS_COOLDOWN_MS must be an integer number of milliseconds between 100 and 600000',
    ],
    [
      'JWT_JWKS_COOLDOWN_MS=1s',
      { JWT_JWKS_COOLDOWN_MS: '1s' },
      'JWT_JWKS_COOLDOWN_MS must be an integer number of milliseconds between 100 and 600000',
    ],
    ['a JWT_SECRET of 31 ASCII bytes', { JWT_SECRET: 'x'.repeat(31) }, 'JWT_SECRET must be at least 32 bytes long'],
    [
      'a JWT_SECRET of 10 three-byte characters',
      { JWT_SECRET: '€'.repeat(10) },
      'JWT_SECRET must be at least 32 bytes long',
    ],
    [
      'a too short JWT_SECRET also in production',
      { NODE_ENV: 'production', JWT_SECRET: 'short' },
      'JWT_SECRET must be at least 32 bytes long',
    ],
    ['production without any key', { NODE_ENV: 'production' }, 'JWT_SECRET is required when NODE_ENV=production'],
    [
      'production with an empty JWT_SECRET',
      { NODE_ENV: 'production', JWT_SECRET: '' },
      'JWT_SECRET is required when NODE_ENV=production',
    ],
    [
      'an HMAC algorithm without JWT_SECRET',
      { JWT_JWKS_URI: JWKS, JWT_ALGORITHMS: 'HS256' },
      'JWT_ALGORITHMS lists HS256, which needs JWT_SECRET',
    ],
    [
      'a public-key algorithm without JWT_JWKS_URI',
      { JWT_SECRET: SECRET_32, JWT_ALGORITHMS: 'RS256' },
      'JWT_ALGORITHMS lists RS256, which needs JWT_JWKS_URI',
    ],
    [
      'an unknown algorithm',
      { JWT_SECRET: SECRET_32, JWT_ALGORITHMS: 'HS256,none' },
      'JWT_ALGORITHMS must be a comma-separated list of HS256, HS384, HS512, RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512',
    ],
    [
      'a JWKS URI that is no http(s) URL',
      { JWT_JWKS_URI: 'ftp://idp.example/jwks' },
      'JWT_JWKS_URI must be an http:// or https:// URL',
    ],
    [
      'an http:// JWKS URI in production',
      { NODE_ENV: 'production', JWT_JWKS_URI: 'http://idp.example/jwks' },
      'JWT_JWKS_URI must be an https:// URL when NODE_ENV=production',
    ],
    [
      'NODE_ENV=staging',
      { NODE_ENV: 'staging' },
      'NODE_ENV must be one of the following values: development, production, test',
    ],
  ])('rejects %s: %s', (_name, env, message) => {
    expect(() => loadAuthConfig(env)).toThrow(
      expect.objectContaining({ name: 'ConfigValidationError', message: `Invalid configuration: ${message}` }),
    );
  });

  it('does not put the secret value into the message', () => {
    const secret = 'tooshort-s3cr3t';
    expectRejected(() => loadAuthConfig({ JWT_SECRET: secret }), 'JWT_SECRET');
    expect(() => loadAuthConfig({ JWT_SECRET: secret })).not.toThrow(secret);
  });
});

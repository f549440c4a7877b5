import { createHmac, hkdfSync } from 'node:crypto';
import { CURSOR_KEY_INFO, loadCursorConfig, MIN_CURSOR_SECRET_BYTES } from './cursor.config';

const SECRET_32 = 'x'.repeat(32);
const JWT_SECRET = 'j'.repeat(48);

describe('loadCursorConfig', () => {
  it('uses CURSOR_SECRET itself, as UTF-8 bytes, when set', () => {
    const config = loadCursorConfig({ CURSOR_SECRET: SECRET_32, JWT_SECRET });

    expect(config).toEqual({ key: Buffer.from(SECRET_32, 'utf8'), keySource: 'CURSOR_SECRET' });
  });

  it('otherwise derives the key from JWT_SECRET with HKDF-SHA256 (RFC 5869, info "blog-list-cursor"), never the secret itself', () => {
    const config = loadCursorConfig({ JWT_SECRET });

    expect(config.keySource).toBe('JWT_SECRET');
    expect(config.key).toHaveLength(32);
    expect(config.key.equals(Buffer.from(JWT_SECRET))).toBe(false);
    expect(config.key).toEqual(Buffer.from(hkdfSync('sha256', JWT_SECRET, Buffer.alloc(0), CURSOR_KEY_INFO, 32)));
    // RFC 5869 with an empty salt: PRK = HMAC(zeros, IKM); OKM = HMAC(PRK, info || 0x01), cut to 32 bytes.
    const prk = createHmac('sha256', Buffer.alloc(32)).update(JWT_SECRET).digest();
    const okm = createHmac('sha256', prk)
      .update(Buffer.concat([Buffer.from(CURSOR_KEY_INFO), Buffer.from([1])]))
      .digest();
    expect(config.key).toEqual(okm);
    expect(loadCursorConfig({ JWT_SECRET }).key).toEqual(config.key);
  });

  it.each(['development', 'test'])('%s without either secret: a random 32-byte key for this process', (NODE_ENV) => {
    const config = loadCursorConfig({ NODE_ENV, CURSOR_SECRET: '', JWT_SECRET: '' });

    expect(config.keySource).toBe('random');
    expect(config.key).toHaveLength(MIN_CURSOR_SECRET_BYTES);
    expect(loadCursorConfig({ NODE_ENV }).key.equals(config.key)).toBe(false);
  });

  it('production: CURSOR_SECRET or JWT_SECRET is enough', () => {
    expect(loadCursorConfig({ NODE_ENV: 'production', CURSOR_SECRET: SECRET_32 }).keySource).toBe('CURSOR_SECRET');
    expect(loadCursorConfig({ NODE_ENV: 'production', JWT_SECRET }).keySource).toBe('JWT_SECRET');
  });

  it('counts CURSOR_SECRET in UTF-8 bytes: 11 three-byte characters are enough', () => {
    expect(loadCursorConfig({ CURSOR_SECRET: '€'.repeat(11) }).key).toHaveLength(33);
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    [
      'production without either secret (JWKS-only)',
      { NODE_ENV: 'production', JWT_JWKS_URI: 'https://idp.example/jwks' },
      'CURSOR_SECRET is required when NODE_ENV=production and JWT_SECRET is unset, so that every replica accepts the same list cursors',
    ],
    ['a CURSOR_SECRET of 31 bytes', { CURSOR_SECRET: 'x'.repeat(31) }, 'CURSOR_SECRET must be at least 32 bytes long'],
    [
      'a CURSOR_SECRET of 10 three-byte characters',
      { CURSOR_SECRET: '€'.repeat(10), JWT_SECRET },
      'CURSOR_SECRET must be at least 32 bytes long',
    ],
    ['a short JWT_SECRET to derive from', { JWT_SECRET: 'short' }, 'JWT_SECRET must be at least 32 bytes long'],
    [
      'NODE_ENV=staging',
      { NODE_ENV: 'staging' },
      'NODE_ENV must be one of the following values: development, production, test',
    ],
  ])('rejects %s with one line naming the variable', (_name, env, message) => {
    expect(() => loadCursorConfig(env)).toThrow(
      expect.objectContaining({ name: 'ConfigValidationError', message: `Invalid configuration: ${message}` }),
    );
  });

  it('never puts a secret into the message', () => {
    const secret = 'tooshort-s3cr3t';
    expect(() => loadCursorConfig({ CURSOR_SECRET: secret })).toThrow(/CURSOR_SECRET/);
    expect(() => loadCursorConfig({ CURSOR_SECRET: secret })).not.toThrow(secret);
  });
});

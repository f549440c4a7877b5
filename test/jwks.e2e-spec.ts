import { createHmac, generateKeyPairSync, JsonWebKey, KeyObject } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sign, SignOptions } from 'jsonwebtoken';
import { BLOGS, BODY, bearer, expectJsonError } from './support/blog-api';
import { TEST_JWT_SECRET, useTestApp } from './support/test-app';

// Besides HS256 with JWT_SECRET, RS256 and ES256 tokens of an identity provider are verified with
// its keys from JWT_JWKS_URI (cached; an unknown kid refetches at most once per cooldown);
// only the algorithms of JWT_ALGORITHMS pass; an HS256 token signed with the provider's public key
// fails (algorithm confusion). The provider is a local JWKS server run by the test.

interface SigningKey {
  readonly kid: string;
  readonly alg: 'RS256' | 'ES256' | 'RS384';
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

function rsaKey(kid: string, alg: 'RS256' | 'RS384' = 'RS256'): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, alg, privateKey, publicKey };
}

function ecKey(kid: string): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { kid, alg: 'ES256', privateKey, publicKey };
}

/** A JWKS endpoint serving `keys` (changeable), counting its fetches; `down` makes it answer 503. */
class JwksServer {
  keys: SigningKey[] = [];
  fetches = 0;
  down = false;
  private server?: Server;
  uri = '';

  async start(): Promise<void> {
    this.server = createServer((request: IncomingMessage, response: ServerResponse) => {
      this.fetches += 1;
      if (this.down || request.url !== '/.well-known/jwks.json') {
        response.writeHead(this.down ? 503 : 404).end();
        return;
      }
      const keys = this.keys.map((k): JsonWebKey => ({
        ...k.publicKey.export({ format: 'jwk' }),
        kid: k.kid,
        alg: k.alg,
        use: 'sig',
      }));
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.uri = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  /**
   * Serves `keys` for the enclosing `describe`, around an app configured with `env` and this
   * server's JWT_JWKS_URI: the server starts before the app and stops after it.
   */
  useWithApp(keys: SigningKey[], env: Record<string, string | undefined>) {
    beforeAll(async () => {
      this.keys = keys;
      await this.start();
    });
    const t = useTestApp(() => ({ JWT_JWKS_URI: this.uri, RATE_LIMIT_ENABLED: 'false', ...env }));
    afterAll(async () => {
      await this.stop();
    });
    return t;
  }
}

/** A token for `sub` signed with `key` (its kid in the header unless `kid: null`). */
function idpToken(key: SigningKey, claims: object = {}, options: SignOptions & { kid?: string | null } = {}): string {
  const { kid = key.kid, ...rest } = options;
  return sign({ sub: 'idp-user', ...claims }, key.privateKey, {
    algorithm: key.alg,
    ...('exp' in claims ? {} : { expiresIn: '1h' }),
    ...(kid === null ? {} : { keyid: kid }),
    ...rest,
  });
}

/** A compact JWS made by hand, for headers jsonwebtoken refuses to sign (e.g. HMAC with a public key). */
function handMade(header: object, payload: object, hmacKey: string | Buffer): string {
  const encode = (part: object): string => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${createHmac('sha256', hmacKey).update(input).digest('base64url')}`;
}

const exp = (): number => Math.floor(Date.now() / 1000) + 3600;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('JWT_JWKS_URI with JWT_SECRET (both kinds of token)', () => {
  const idp = new JwksServer();
  const rsa = rsaKey('rsa-1');
  const ec = ecKey('ec-1');
  const t = idp.useWithApp([rsa, ec], { JWT_ALGORITHMS: 'HS256,RS256,ES256' });

  it.each([
    ['an RS256 token of the identity provider', () => idpToken(rsa, { sub: 'rsa-user' })],
    ['an ES256 token of the identity provider', () => idpToken(ec, { sub: 'ec-user' })],
    ['an HS256 token signed with JWT_SECRET', () => t.token('hs-user')],
  ])('accepts %s: 201', async (_name, token) => {
    await t.http.post(BLOGS).set('Authorization', bearer(token())).send(BODY).expect(201);
  });

  it('the sub of a provider token is the owner, as for any token', async () => {
    const byRsa = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(rsa, { sub: 'rsa-user' })))
      .send(BODY)
      .expect(201);
    await t.http
      .put(`${BLOGS}/${byRsa.body.id}`)
      .set('Authorization', bearer(idpToken(rsa, { sub: 'rsa-user' })))
      .send(BODY)
      .expect(200);
    expectJsonError(
      await t.http
        .put(`${BLOGS}/${byRsa.body.id}`)
        .set('Authorization', bearer(idpToken(ec, { sub: 'ec-user' })))
        .send(BODY),
      403,
    );
  });

  it('keys are cached: 20 more requests with the two known kids fetch the JWK Set no more', async () => {
    const before = idp.fetches;
    for (let i = 0; i < 10; i += 1) {
      await t.http
        .post(BLOGS)
        .set('Authorization', bearer(idpToken(rsa)))
        .send(BODY)
        .expect(201);
      await t.http
        .post(BLOGS)
        .set('Authorization', bearer(idpToken(ec)))
        .send(BODY)
        .expect(201);
    }
    expect(idp.fetches - before).toBe(0);
  });

  it.each<[string, () => string]>([
    [
      'HS256 signed with the RSA public key (PEM) as HMAC secret, with the kid',
      () =>
        handMade(
          { alg: 'HS256', typ: 'JWT', kid: rsa.kid },
          { sub: 'mallory', exp: exp() },
          rsa.publicKey.export({ format: 'pem', type: 'spki' }),
        ),
    ],
    [
      'HS256 signed with the RSA public key (PEM) as HMAC secret, no kid',
      () =>
        handMade(
          { alg: 'HS256', typ: 'JWT' },
          { sub: 'mallory', exp: exp() },
          rsa.publicKey.export({ format: 'pem', type: 'spki' }),
        ),
    ],
    [
      'HS256 signed with the RSA public key (DER) as HMAC secret',
      () =>
        handMade(
          { alg: 'HS256', typ: 'JWT', kid: rsa.kid },
          { sub: 'mallory', exp: exp() },
          rsa.publicKey.export({ format: 'der', type: 'spki' }),
        ),
    ],
    [
      'HS256 signed with the JWK text of the public key',
      () =>
        handMade(
          { alg: 'HS256', typ: 'JWT', kid: rsa.kid },
          { sub: 'mallory', exp: exp() },
          JSON.stringify(rsa.publicKey.export({ format: 'jwk' })),
        ),
    ],
    [
      'alg none',
      () =>
        `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'mallory', exp: exp() })).toString('base64url')}.`,
    ],
    ['RS384 (a provider algorithm not in JWT_ALGORITHMS)', () => idpToken({ ...rsa, alg: 'RS384' })],
    ['RS256 signed by another key under a known kid', () => idpToken({ ...rsaKey('x'), kid: rsa.kid })],
    ['ES256 header over an RSA kid', () => idpToken({ ...ecKey('y'), kid: rsa.kid })],
    ['RS256 with an unknown kid', () => idpToken(rsaKey('unknown-kid'))],
    ['RS256 expired', () => idpToken(rsa, { exp: Math.floor(Date.now() / 1000) - 120 })],
    [
      'HS256 signed with another secret',
      () => t.sign({ sub: 'mallory', exp: exp() }, {}, 'another-secret-of-at-least-32-bytes-long!!'),
    ],
  ])('rejects %s with 401 invalid_token', async (_name, token) => {
    const res = await t.http.post(BLOGS).set('Authorization', bearer(token())).send(BODY);
    expectJsonError(res, 401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('made-up kids cannot make the service hammer the provider: 30 of them cause at most one fetch (the cooldown), all 401', async () => {
    const before = idp.fetches;
    for (let i = 0; i < 30; i += 1) {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', bearer(idpToken({ ...rsa, kid: `made-up-${i}` })))
        .send(BODY);
      expectJsonError(res, 401);
    }
    expect(idp.fetches - before).toBeLessThanOrEqual(1);
    // known keys keep working meanwhile (cache)
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(ec)))
      .send(BODY)
      .expect(201);
  });
});

describe('key rotation and an unavailable provider (JWT_JWKS_URI only, production rules)', () => {
  const COOLDOWN_MS = 500;
  const idp = new JwksServer();
  const old = rsaKey('2026-old');
  const next = rsaKey('2026-next');
  const t = idp.useWithApp([old], { JWT_JWKS_COOLDOWN_MS: String(COOLDOWN_MS), JWT_SECRET: undefined });

  it('without JWT_SECRET no HS256 token passes, not even one signed with the test secret', async () => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.sign({ sub: 'x', exp: exp() }, {}, TEST_JWT_SECRET)))
      .send(BODY);
    expectJsonError(res, 401);
  });

  it('a key added by the provider (new kid) is fetched and accepted, also once the old key is withdrawn', async () => {
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(old)))
      .send(BODY)
      .expect(201);
    idp.keys = [old, next];
    await sleep(COOLDOWN_MS);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(next)))
      .send(BODY)
      .expect(201);
    idp.keys = [next];
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(next)))
      .send(BODY)
      .expect(201);
  });

  it('when the provider is down: cached keys still verify; a token with an uncached kid gets 503 with Retry-After, not 401', async () => {
    idp.down = true;
    await sleep(COOLDOWN_MS);
    try {
      await t.http
        .post(BLOGS)
        .set('Authorization', bearer(idpToken(next)))
        .send(BODY)
        .expect(201);
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', bearer(idpToken(rsaKey('2027-new'))))
        .send(BODY);
      expectJsonError(res, 503);
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      idp.down = false;
    }
  });
});

describe('made-up kids cannot lock out a rotated key (JWT_JWKS_COOLDOWN_MS)', () => {
  const COOLDOWN_MS = 1_000;
  const idp = new JwksServer();
  const current = rsaKey('current');
  const rotated = rsaKey('rotated');
  const t = idp.useWithApp([current], { JWT_JWKS_COOLDOWN_MS: String(COOLDOWN_MS) });

  it('while tokens with random kids keep coming, a key the provider publishes is accepted within one cooldown', async () => {
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(idpToken(current)))
      .send(BODY)
      .expect(201);
    const before = idp.fetches;
    const started = Date.now();
    let attacking = true;
    let attacks = 0;
    const attacker = (async (): Promise<void> => {
      while (attacking) {
        const res = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(idpToken({ ...current, kid: `random-${attacks}` })))
          .send(BODY);
        expect(res.status).toBe(401);
        attacks += 1;
      }
    })();
    try {
      // The key is published once the made-up kids are coming (a count, not a time: the machine may be busy).
      while (attacks <= 15) await sleep(20);
      idp.keys = [current, rotated];
      const published = Date.now();
      let acceptedAfter: number | undefined;
      while (acceptedAfter === undefined && Date.now() - published < 3 * COOLDOWN_MS) {
        const res = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(idpToken(rotated)))
          .send(BODY);
        if (res.status === 201) acceptedAfter = Date.now() - published;
        else expect(res.status).toBe(401);
        await sleep(50);
      }
      expect(acceptedAfter).toBeDefined();
      expect(acceptedAfter).toBeLessThanOrEqual(COOLDOWN_MS + 500);
    } finally {
      attacking = false;
      await attacker;
    }
    expect(attacks).toBeGreaterThan(15);
    // one fetch per cooldown at most, however many made-up kids arrived
    expect(idp.fetches - before).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / COOLDOWN_MS) + 1);
  });
});

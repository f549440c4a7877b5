import { ExecutionContext, Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import * as jwt from 'jsonwebtoken';
import { AuthConfig, authConfig, loadAuthConfig } from '../config/auth.config';
import { Public, ReadAccess } from './access.decorator';
import { errorOf } from '../../test/support/http-error';
import { BearerTokenException } from './bearer-token.exception';
import { JwtAuthGuard, requireCaller } from './jwt-auth.guard';
import { JwtStrategy, VerifiedTokenInfo } from './jwt.strategy';
import type { JwtClaims, Principal } from './principal';
import { VerifiedTokens } from './verified-tokens';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const OTHER_SECRET = 'another-secret-that-is-also-32-bytes-or-more!';

/** A fixed clock (seconds since the epoch) so expiry tests do not depend on the real time. */
const NOW_MS = Date.UTC(2026, 0, 15, 12, 0, 0);
const NOW = Math.floor(NOW_MS / 1000);

/** Dummy controller: each method carries one access policy. */
class DummyController {
  @Public()
  health(): void {}

  @ReadAccess()
  list(): void {}

  create(): void {}
}

@Public()
class PublicController {
  anything(): void {}
}

interface FakeRequest {
  headers: Record<string, string>;
  user?: unknown;
}

function makeConfig(overrides: { readsRequireAuth?: boolean; issuer?: string; audience?: string } = {}): AuthConfig {
  const base = loadAuthConfig({ NODE_ENV: 'test', JWT_SECRET: SECRET });
  return {
    jwt: { ...base.jwt, issuer: overrides.issuer, audience: overrides.audience },
    readsRequireAuth: overrides.readsRequireAuth ?? false,
  };
}

function contextFor(
  handler: (...args: never[]) => unknown,
  req: FakeRequest,
  cls: new (...args: never[]) => unknown = DummyController,
): ExecutionContext {
  const res = {};
  return {
    switchToHttp: () => ({ getRequest: () => req, getResponse: () => res, getNext: () => undefined }),
    getHandler: () => handler,
    getClass: () => cls,
    getType: () => 'http',
    getArgs: () => [req, res],
    getArgByIndex: (i: number) => [req, res][i],
    switchToRpc: () => {
      throw new Error('not rpc');
    },
    switchToWs: () => {
      throw new Error('not ws');
    },
  } as unknown as ExecutionContext;
}

function sign(payload: Record<string, unknown>, options: jwt.SignOptions = {}, secret = SECRET): string {
  return jwt.sign({ iat: NOW, ...payload }, secret, { algorithm: 'HS256', noTimestamp: true, ...options });
}

function bearer(token: string, scheme = 'Bearer'): FakeRequest {
  return { headers: { authorization: `${scheme} ${token}` } };
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * The guard with `strategy` registered as Passport's `jwt` strategy (the strategy registers itself
 * when it is constructed, so every test builds its own module).
 */
async function makeGuard(
  config: AuthConfig,
  strategy: new (...args: never[]) => JwtStrategy = JwtStrategy,
): Promise<JwtAuthGuard> {
  const moduleRef = await Test.createTestingModule({
    providers: [strategy, JwtAuthGuard, VerifiedTokens, Reflector, { provide: authConfig.KEY, useValue: config }],
  }).compile();
  return moduleRef.get(JwtAuthGuard);
}

/** What `guard.canActivate` settled with: its value, or the error it threw or rejected with. */
async function settle(guard: JwtAuthGuard, context: ExecutionContext): Promise<{ value?: unknown; error?: unknown }> {
  return Promise.resolve()
    .then(() => guard.canActivate(context))
    .then(
      (value: unknown) => ({ value }),
      (error: unknown) => ({ error }),
    );
}

/** The fault the failing strategies below raise: not an authentication failure. */
const FAULT = new Error('claims store unreachable');

/** A strategy whose `validate` fails for a reason that has nothing to do with the token. */
@Injectable()
class FaultyStrategy extends JwtStrategy {
  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
    super(config);
  }

  override validate(): never {
    throw FAULT;
  }
}

/** A strategy whose `validate` throws an HTTP error other than 401 (a dependency is down). */
@Injectable()
class UnavailableStrategy extends JwtStrategy {
  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
    super(config);
  }

  override validate(): never {
    throw new ServiceUnavailableException('identity store unavailable');
  }
}

/** A strategy whose `validate` rejects the claims: an authentication failure. */
@Injectable()
class RejectingStrategy extends JwtStrategy {
  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
    super(config);
  }

  override validate(): never {
    throw BearerTokenException.invalid('token revoked');
  }
}

/** A strategy that reports the token's `exp` as {@link NOW}, whatever the token says. */
@Injectable()
class ExpiringNowStrategy extends JwtStrategy {
  constructor(@Inject(authConfig.KEY) config: AuthConfig) {
    super(config);
  }

  override validate(claims: JwtClaims): [Principal, VerifiedTokenInfo] {
    return [super.validate(claims)[0], { exp: NOW }];
  }
}

/** Runs the guard and returns the 401 it threw, failing the test when it did not throw one. */
async function rejection(guard: JwtAuthGuard, context: ExecutionContext): Promise<BearerTokenException> {
  const error: unknown = await Promise.resolve()
    .then(() => guard.canActivate(context))
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(BearerTokenException);
  const exception = error as BearerTokenException;
  expect(exception.getStatus()).toBe(401);
  return exception;
}

describe('JwtAuthGuard with JwtStrategy', () => {
  const handlers = DummyController.prototype;

  beforeEach(() => {
    jest.spyOn(Date, 'now').mockReturnValue(NOW_MS);
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  describe('public routes', () => {
    it('passes without an Authorization header', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: true }));

      await expect(Promise.resolve(guard.canActivate(contextFor(handlers.health, { headers: {} })))).resolves.toBe(
        true,
      );
    });

    it('ignores an invalid Authorization header', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: true }));
      const req = bearer('not-a-jwt');

      await expect(Promise.resolve(guard.canActivate(contextFor(handlers.health, req)))).resolves.toBe(true);
      expect(req.user).toBeUndefined();
    });

    it('honours @Public() on the class', async () => {
      const guard = await makeGuard(makeConfig());
      const context = contextFor(PublicController.prototype.anything, { headers: {} }, PublicController);

      await expect(Promise.resolve(guard.canActivate(context))).resolves.toBe(true);
    });
  });

  describe('read routes', () => {
    it('pass without a header when readsRequireAuth=false', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: false }));

      await expect(Promise.resolve(guard.canActivate(contextFor(handlers.list, { headers: {} })))).resolves.toBe(true);
    });

    it.each<[string, () => FakeRequest, string]>([
      ['a malformed token', () => bearer('garbage'), 'Bearer error="invalid_token"'],
      [
        'another secret',
        () => bearer(sign({ sub: 'alice', exp: NOW + 60 }, {}, OTHER_SECRET)),
        'Bearer error="invalid_token"',
      ],
      ['an expired token', () => bearer(sign({ sub: 'alice', exp: NOW - 60 })), 'Bearer error="invalid_token"'],
      ['another scheme', () => bearer(sign({ sub: 'alice', exp: NOW + 60 }), 'Basic'), 'Bearer'],
    ])(
      'read %s as no token when readsRequireAuth=false: no principal, never 401; an answer that needs the caller refuses with challenge %s',
      async (_name, request, challenge) => {
        const guard = await makeGuard(makeConfig({ readsRequireAuth: false }));
        const req = request();

        await expect(Promise.resolve(guard.canActivate(contextFor(handlers.list, req)))).resolves.toBe(true);
        expect(req.user).toBeUndefined();
        const refusal = await errorOf(() => requireCaller(undefined, req));
        expect(refusal).toBeInstanceOf(BearerTokenException);
        expect((refusal as BearerTokenException).challenge).toBe(challenge);
      },
    );

    it('identify the caller of a valid token when readsRequireAuth=false', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: false }));
      const req = bearer(sign({ sub: 'alice', scope: 'blogs:admin', exp: NOW + 60 }));

      await expect(Promise.resolve(guard.canActivate(contextFor(handlers.list, req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: ['blogs:admin'] });
    });

    it('reject a request without a header (401, challenge Bearer) when readsRequireAuth=true', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: true }));

      const error = await rejection(guard, contextFor(handlers.list, { headers: {} }));
      expect(error.challenge).toBe('Bearer');
    });

    it('accept a valid token when readsRequireAuth=true', async () => {
      const guard = await makeGuard(makeConfig({ readsRequireAuth: true }));
      const req = bearer(sign({ sub: 'alice', exp: NOW + 60 }));

      await expect(Promise.resolve(guard.canActivate(contextFor(handlers.list, req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: [] });
    });
  });

  describe('protected routes', () => {
    let guard: JwtAuthGuard;

    beforeEach(async () => {
      guard = await makeGuard(makeConfig());
    });

    const protectedContext = (req: FakeRequest): ExecutionContext => contextFor(handlers.create, req);

    it('reject a request without Authorization header: 401 with challenge "Bearer"', async () => {
      const error = await rejection(guard, protectedContext({ headers: {} }));
      expect(error.challenge).toBe('Bearer');
    });

    it('reject a header with another scheme', async () => {
      const token = sign({ sub: 'alice', exp: NOW + 60 });
      await rejection(guard, protectedContext({ headers: { authorization: `Basic ${token}` } }));
    });

    it('accept a valid HS256 token and set req.user = { sub, scopes }', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW + 3600, scope: 'blogs:admin openid' }));

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: ['blogs:admin', 'openid'] });
    });

    it('accept the scheme name in any case (RFC 9110 §11.1)', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW + 60 }), 'bEaReR');

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: [] });
    });

    it('reject an expired token: 401 with challenge Bearer error="invalid_token"', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW - 3600 }));

      const error = await rejection(guard, protectedContext(req));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
      expect(req.user).toBeUndefined();
    });

    it('reject a malformed token with challenge Bearer error="invalid_token"', async () => {
      const error = await rejection(guard, protectedContext(bearer('abc.def.ghi')));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject a token signed with another secret', async () => {
      const error = await rejection(
        guard,
        protectedContext(bearer(sign({ sub: 'alice', exp: NOW + 60 }, {}, OTHER_SECRET))),
      );
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject alg "none"', async () => {
      const token = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: 'alice', exp: NOW + 60 })}.`;

      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject HS512 even when signed with the right secret', async () => {
      const token = sign({ sub: 'alice', exp: NOW + 60 }, { algorithm: 'HS512' });

      await rejection(guard, protectedContext(bearer(token)));
    });

    it('reject a token without exp', async () => {
      const token = sign({ sub: 'alice' });

      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject a token without sub', async () => {
      const error = await rejection(guard, protectedContext(bearer(sign({ exp: NOW + 60 }))));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject an empty or non-string sub', async () => {
      await rejection(guard, protectedContext(bearer(sign({ sub: '', exp: NOW + 60 }))));
      await rejection(guard, protectedContext(bearer(sign({ sub: 42, exp: NOW + 60 }))));
    });

    it('reject a token that is not yet valid (nbf 60 s ahead)', async () => {
      const token = sign({ sub: 'alice', exp: NOW + 3600, nbf: NOW + 60 });

      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('accept exp 10 s in the past (clock tolerance 30 s)', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW - 10 }));

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: [] });
    });

    it('accept nbf 10 s in the future (clock tolerance 30 s)', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW + 60, nbf: NOW + 10 }));

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
    });

    it('reject exp 60 s in the past (beyond the clock tolerance)', async () => {
      const error = await rejection(guard, protectedContext(bearer(sign({ sub: 'alice', exp: NOW - 60 }))));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    describe('the Authorization header is read strictly (RFC 6750 §2.1)', () => {
      const token = (): string => sign({ sub: 'alice', exp: NOW + 60 });

      it.each<[string, () => string]>([
        ['garbage after the token', () => `Bearer ${token()} trailing-garbage`],
        ['a second token after the token', () => `Bearer ${token()} ${token()}`],
        ['auth-params after the token', () => `Bearer ${token()}, realm="blogs"`],
        ['a tab between scheme and token', () => `Bearer\t${token()}`],
        ['a character outside b64token in the token', () => `Bearer ${token()}!`],
      ])('reject %s: 401 with challenge Bearer error="invalid_token", and no principal', async (_name, header) => {
        const req: FakeRequest = { headers: { authorization: header() } };

        const error = await rejection(guard, protectedContext(req));
        expect(error.challenge).toBe('Bearer error="invalid_token"');
        expect(error.message).toMatch(/Authorization header/);
        expect(req.user).toBeUndefined();
      });

      it('accept several spaces between scheme and token (1*SP)', async () => {
        const req: FakeRequest = { headers: { authorization: `Bearer   ${token()}` } };

        await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
        expect(req.user).toEqual({ sub: 'alice', scopes: [] });
      });

      it.each<[string, string]>([
        ['"Bearer" with no token', 'Bearer'],
        ['another scheme', 'Basic YWxpY2U6cHc='],
      ])('reject %s as a missing token: challenge "Bearer", no error code (RFC 6750 §3.1)', async (_name, header) => {
        const error = await rejection(guard, protectedContext({ headers: { authorization: header } }));
        expect(error.challenge).toBe('Bearer');
      });
    });

    it('does not verify iss or aud when they are not configured', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW + 60, iss: 'anyone', aud: 'anything' }));

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
    });
  });

  describe('errors of the strategy', () => {
    const req = (): FakeRequest => bearer(sign({ sub: 'alice', exp: NOW + 60 }));

    it('rethrows an unexpected Error unchanged instead of answering 401', async () => {
      const guard = await makeGuard(makeConfig(), FaultyStrategy);
      const request = req();

      const outcome = await settle(guard, contextFor(handlers.create, request));
      expect(outcome.error).toBe(FAULT);
      expect(request.user).toBeUndefined();
    });

    it('rethrows an HTTP error other than 401 with its own status', async () => {
      const guard = await makeGuard(makeConfig(), UnavailableStrategy);

      const outcome = await settle(guard, contextFor(handlers.create, req()));
      expect(outcome.error).toBeInstanceOf(ServiceUnavailableException);
    });

    it('on an open read, unfetchable keys leave the request anonymous; an unexpected Error still propagates', async () => {
      const unavailable = await makeGuard(makeConfig(), UnavailableStrategy);
      const request = req();
      await expect(settle(unavailable, contextFor(handlers.list, request))).resolves.toEqual({ value: true });
      expect(request.user).toBeUndefined();

      const faulty = await makeGuard(makeConfig(), FaultyStrategy);
      await expect(settle(faulty, contextFor(handlers.list, req()))).resolves.toMatchObject({ error: FAULT });
    });

    it('keeps an authentication failure raised by validate as the 401 it is', async () => {
      const guard = await makeGuard(makeConfig(), RejectingStrategy);

      const error = await rejection(guard, contextFor(handlers.create, req()));
      expect(error.message).toBe('Invalid bearer token: token revoked');
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('keeps a token rejected by the verifier (passport fail, no error) as a 401', async () => {
      const guard = await makeGuard(makeConfig(), FaultyStrategy);

      // validate() is never reached: the signature check fails first.
      const forged = bearer(sign({ sub: 'alice', exp: NOW + 60 }, {}, OTHER_SECRET));
      const error = await rejection(guard, contextFor(handlers.create, forged));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });
  });

  describe('a token verified before', () => {
    const protectedContext = (req: FakeRequest): ExecutionContext => contextFor(handlers.create, req);

    /** The guard, and how often its strategy's `validate` ran (once per signature check that passed). */
    async function countingGuard(): Promise<{ guard: JwtAuthGuard; verifications: () => number }> {
      const validate = jest.spyOn(JwtStrategy.prototype, 'validate');
      return { guard: await makeGuard(makeConfig()), verifications: () => validate.mock.calls.length };
    }

    it('is not verified again, and sets the same principal', async () => {
      const { guard, verifications } = await countingGuard();
      const token = sign({ sub: 'alice', exp: NOW + 3600, scope: 'blogs:admin' });
      const first = bearer(token);
      const second = bearer(token);

      await expect(Promise.resolve(guard.canActivate(protectedContext(first)))).resolves.toBe(true);
      await expect(Promise.resolve(guard.canActivate(protectedContext(second)))).resolves.toBe(true);
      expect(verifications()).toBe(1);
      expect(second.user).toEqual({ sub: 'alice', scopes: ['blogs:admin'] });
    });

    it('is verified again a minute after its verification', async () => {
      const { guard, verifications } = await countingGuard();
      const token = sign({ sub: 'alice', exp: NOW + 3600 });
      await guard.canActivate(protectedContext(bearer(token)));

      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 59_999);
      await guard.canActivate(protectedContext(bearer(token)));
      expect(verifications()).toBe(1);
      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 60_000);
      await guard.canActivate(protectedContext(bearer(token)));
      expect(verifications()).toBe(2);
    });

    it('is trusted until the exp the strategy verified, not one read from the token again', async () => {
      const validate = jest.spyOn(ExpiringNowStrategy.prototype, 'validate');
      const guard = await makeGuard(makeConfig(), ExpiringNowStrategy);
      const token = sign({ sub: 'alice', exp: NOW + 3600 });
      await guard.canActivate(protectedContext(bearer(token)));

      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 29_999);
      await guard.canActivate(protectedContext(bearer(token)));
      expect(validate).toHaveBeenCalledTimes(1);
      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 30_000);
      await guard.canActivate(protectedContext(bearer(token)));
      expect(validate).toHaveBeenCalledTimes(2);
    });

    it('is refused once past exp + the clock tolerance (401 token expired)', async () => {
      const guard = await makeGuard(makeConfig());
      const token = sign({ sub: 'alice', exp: NOW + 20 });
      await guard.canActivate(protectedContext(bearer(token)));

      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 49_999);
      await expect(Promise.resolve(guard.canActivate(protectedContext(bearer(token))))).resolves.toBe(true);
      jest.spyOn(Date, 'now').mockReturnValue(NOW_MS + 50_000);
      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.message).toBe('Invalid bearer token: token expired');
    });

    it('does not let a token with one changed character through', async () => {
      const guard = await makeGuard(makeConfig());
      const token = sign({ sub: 'alice', exp: NOW + 3600 });
      await guard.canActivate(protectedContext(bearer(token)));
      const last = token.at(-1) === 'A' ? 'B' : 'A';

      await rejection(guard, protectedContext(bearer(`${token.slice(0, -1)}${last}`)));
    });
  });

  describe('with JWT_ISSUER and JWT_AUDIENCE configured', () => {
    let guard: JwtAuthGuard;

    beforeEach(async () => {
      guard = await makeGuard(makeConfig({ issuer: 'https://idp.example', audience: 'blog-service' }));
    });

    const protectedContext = (req: FakeRequest): ExecutionContext => contextFor(handlers.create, req);

    it('accept a token with the configured iss and aud', async () => {
      const req = bearer(sign({ sub: 'alice', exp: NOW + 60, iss: 'https://idp.example', aud: 'blog-service' }));

      await expect(Promise.resolve(guard.canActivate(protectedContext(req)))).resolves.toBe(true);
      expect(req.user).toEqual({ sub: 'alice', scopes: [] });
    });

    it('reject a wrong iss', async () => {
      const token = sign({ sub: 'alice', exp: NOW + 60, iss: 'https://evil.example', aud: 'blog-service' });

      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject a missing iss', async () => {
      await rejection(guard, protectedContext(bearer(sign({ sub: 'alice', exp: NOW + 60, aud: 'blog-service' }))));
    });

    it('reject a wrong aud', async () => {
      const token = sign({ sub: 'alice', exp: NOW + 60, iss: 'https://idp.example', aud: 'other-service' });

      const error = await rejection(guard, protectedContext(bearer(token)));
      expect(error.challenge).toBe('Bearer error="invalid_token"');
    });

    it('reject a missing aud', async () => {
      await rejection(
        guard,
        protectedContext(bearer(sign({ sub: 'alice', exp: NOW + 60, iss: 'https://idp.example' }))),
      );
    });
  });
});

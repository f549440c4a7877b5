import { ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { IncomingMessage } from 'node:http';
import { appConfig, AppConfigType } from '../config/app.config';
import { ACCESS_POLICY_KEY, AccessPolicy } from './access.decorator';
import { readBearerCredentials } from './bearer-credentials';
import { BearerTokenException } from './bearer-token.exception';
import { isVerifiableToken } from './verifiable-token';
import { JWT_STRATEGY } from './jwt.constants';
import type { Principal } from './principal';

/**
 * Global guard: every route needs a valid bearer token (see {@link JwtStrategy}) unless it is
 * marked `@Public()`, or `@ReadAccess()` while `READS_REQUIRE_AUTH` is false. Routes that need no
 * token never look at the `Authorization` header.
 *
 * @throws BearerTokenException (401) for a missing, malformed or rejected token: challenge `Bearer`
 *   when no bearer token was sent, `Bearer error="invalid_token"` otherwise (RFC 6750 §3.1).
 * @throws the 503 of an identity provider whose keys cannot be fetched.
 * @throws anything else the strategy raised (not an authentication failure, e.g. a bug or an
 *   unavailable dependency) unchanged, so that the exception filter logs it and answers 500.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    @Inject(appConfig.KEY) private readonly config: AppConfigType,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(ACCESS_POLICY_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (policy === 'public' || (policy === 'read' && !this.config.readsRequireAuth)) return true;
    // Told apart here, before Passport, because passport-jwt reports both a missing and a
    // malformed header as the same "No auth token" failure, and they carry different challenges.
    const { authorization } = context.switchToHttp().getRequest<IncomingMessage>().headers;
    const credentials = readBearerCredentials(authorization);
    if (credentials.kind === 'none') throw BearerTokenException.missing();
    if (credentials.kind === 'malformed') {
      throw BearerTokenException.invalid('the Authorization header must be "Bearer" and one token, nothing after it');
    }
    if (!isVerifiableToken(credentials.token)) throw BearerTokenException.invalid('token could not be verified');
    return super.canActivate(context) as Promise<boolean>;
  }

  /**
   * Passport's verdict. `error` is what the strategy raised (passport `error()`): the
   * `BearerTokenException` of {@link JwtStrategy.validate} is an authentication failure and already
   * a 401; anything else is a fault and is rethrown as it is. A failure without an error (passport
   * `fail()`, `info` being jsonwebtoken's reason) is a rejected token.
   */
  override handleRequest<TUser = Principal>(error: unknown, principal: TUser | false, info: unknown): TUser {
    if (error !== null && error !== undefined) throw error;
    // The identity provider's keys could not be fetched (see createJwksKeyProvider): not the
    // token's fault, so 503 rather than 401.
    if (info instanceof HttpException && info.getStatus() >= 500) throw info;
    if (!principal) throw describeRejection(info);
    return principal;
  }
}

/** Turns passport-jwt's `info` (a jsonwebtoken error) into a 401 whose message is safe to show. */
function describeRejection(info: unknown): BearerTokenException {
  const name = info instanceof Error ? info.name : undefined;
  switch (name) {
    case 'TokenExpiredError':
      return BearerTokenException.invalid('token expired');
    case 'NotBeforeError':
      return BearerTokenException.invalid('token not yet valid');
    default:
      // JsonWebTokenError (bad signature, algorithm, issuer, audience, malformed JWT…); a missing
      // token never gets here (see canActivate).
      return BearerTokenException.invalid('token could not be verified');
  }
}

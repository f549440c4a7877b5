import { ExecutionContext, HttpException, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ConfigType } from '@nestjs/config';
import { AuthGuard } from '@nestjs/passport';
import type { IncomingMessage } from 'node:http';
import { authConfig } from '../config/auth.config';
import { ACCESS_POLICY_KEY, AccessPolicy } from './access.decorator';
import { readBearerCredentials } from './bearer-credentials';
import { BearerTokenException } from './bearer-token.exception';
import { isVerifiableToken } from './verifiable-token';
import { JWT_STRATEGY } from './jwt.constants';
import type { VerifiedTokenInfo } from './jwt.strategy';
import type { Principal } from './principal';
import { VerifiedTokens } from './verified-tokens';

/**
 * What passport sets on a request it authenticated: `JwtStrategy.validate`'s principal and token info; on an open read,
 * the refusal of a token that counted as none.
 */
interface VerifiedRequest {
  user?: Principal;
  authInfo?: VerifiedTokenInfo;
  tokenRefusal?: HttpException;
}

/**
 * The caller of an open read whose answer needs one: the principal, else the refusal of the token the request came
 * with (401 `invalid_token`, or the 503 of keys that cannot be fetched).
 * @throws that refusal, or BearerTokenException (401) for a request without a token.
 */
export function requireCaller(principal: Principal | undefined, request: object): Principal {
  if (principal !== undefined) return principal;
  throw (request as VerifiedRequest).tokenRefusal ?? BearerTokenException.missing();
}

/**
 * Global guard: a valid bearer token unless the route is `@Public()`, or `@ReadAccess()` while
 * `READS_REQUIRE_AUTH` is false; there a valid token still identifies the caller and an invalid one counts as none.
 * A token verified within the last minute is not verified again ({@link VerifiedTokens}).
 * @throws BearerTokenException (401, RFC 6750 §3.1); the 503 of unreachable identity-provider keys.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  constructor(
    private readonly reflector: Reflector,
    @Inject(authConfig.KEY) private readonly config: ConfigType<typeof authConfig>,
    private readonly verifiedTokens: VerifiedTokens,
  ) {
    super();
  }

  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const policy = this.reflector.getAllAndOverride<AccessPolicy | undefined>(ACCESS_POLICY_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (policy === 'public') return true;
    const request = context.switchToHttp().getRequest<IncomingMessage & VerifiedRequest>();
    if (policy === 'read' && !this.config.readsRequireAuth) return this.identify(context, request);
    // passport-jwt reports a missing and a malformed header alike; their challenges differ.
    const credentials = readBearerCredentials(request.headers.authorization);
    if (credentials.kind === 'none') throw BearerTokenException.missing();
    if (credentials.kind === 'malformed') {
      throw BearerTokenException.invalid('the Authorization header must be "Bearer" and one token, nothing after it');
    }
    const { token } = credentials;
    const known = this.verifiedTokens.get(token);
    if (known !== undefined) {
      request.user = known;
      return true;
    }
    if (!isVerifiableToken(token)) throw BearerTokenException.invalid('token could not be verified');
    return this.verify(context, request, token);
  }

  /** An open route: sets the principal of a valid bearer token, if the request has one; never refuses for a token. */
  private async identify(context: ExecutionContext, request: IncomingMessage & VerifiedRequest): Promise<boolean> {
    const credentials = readBearerCredentials(request.headers.authorization);
    if (credentials.kind !== 'token') return true;
    const known = this.verifiedTokens.get(credentials.token);
    if (known !== undefined) {
      request.user = known;
      return true;
    }
    if (!isVerifiableToken(credentials.token)) {
      request.tokenRefusal = BearerTokenException.invalid('token could not be verified');
      return true;
    }
    try {
      return await this.verify(context, request, credentials.token);
    } catch (error) {
      // A rejected token, or keys that cannot be fetched now: the request goes on as anyone's would.
      if (!(error instanceof HttpException)) throw error;
      request.tokenRefusal = error;
      return true;
    }
  }

  /** Verifies `token` with passport-jwt, and remembers its principal until the `exp` the strategy verified. */
  private async verify(context: ExecutionContext, request: VerifiedRequest, token: string): Promise<boolean> {
    const allowed = (await super.canActivate(context)) as boolean;
    const { user, authInfo } = request;
    if (allowed && user !== undefined && authInfo !== undefined) {
      this.verifiedTokens.remember(token, user, authInfo.exp);
    }
    return allowed;
  }

  override handleRequest<TUser = Principal>(error: unknown, principal: TUser | false, info: unknown): TUser {
    if (error !== null && error !== undefined) throw error;
    // Unreachable identity-provider keys are not the token's fault: 503, not 401.
    if (info instanceof HttpException && info.getStatus() >= 500) throw info;
    if (!principal) throw describeRejection(info);
    return principal;
  }
}

function describeRejection(info: unknown): BearerTokenException {
  const name = info instanceof Error ? info.name : undefined;
  switch (name) {
    case 'TokenExpiredError':
      return BearerTokenException.invalid('token expired');
    case 'NotBeforeError':
      return BearerTokenException.invalid('token not yet valid');
    default:
      return BearerTokenException.invalid('token could not be verified');
  }
}

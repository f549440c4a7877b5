import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { appConfig, AppConfigType } from '../config/app.config';
import { ACCESS_POLICY_KEY, AccessPolicy } from './access.decorator';
import { BearerTokenException } from './bearer-token.exception';
import type { Principal } from './principal';

/**
 * Global guard: every route needs a valid bearer token (see {@link JwtStrategy}) unless it is
 * marked `@Public()`, or `@ReadAccess()` while `READS_REQUIRE_AUTH` is false. Routes that need no
 * token never look at the `Authorization` header.
 *
 * @throws BearerTokenException (401) for a missing or rejected token.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
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
    return super.canActivate(context) as Promise<boolean>;
  }

  override handleRequest<TUser = Principal>(error: unknown, principal: TUser | false, info: unknown): TUser {
    if (error instanceof BearerTokenException) throw error;
    if (error || !principal) throw describeRejection(info);
    return principal;
  }
}

/** Turns passport-jwt's `info` (a jsonwebtoken error or a plain Error) into a safe 401. */
function describeRejection(info: unknown): BearerTokenException {
  const name = info instanceof Error ? info.name : undefined;
  switch (name) {
    case 'TokenExpiredError':
      return BearerTokenException.invalid('token expired');
    case 'NotBeforeError':
      return BearerTokenException.invalid('token not yet valid');
    case 'JsonWebTokenError':
      return BearerTokenException.invalid('token could not be verified');
    default:
      return BearerTokenException.missing();
  }
}

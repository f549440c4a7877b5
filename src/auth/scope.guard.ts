import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Principal } from './principal';

/** The message of the 403 of a route that requires `scope`. */
export const missingScopeMessage = (scope: string): string => `This operation requires a token with the scope ${scope}`;

/** Metadata key of the scope a route requires (set by {@link RequiredScope}). */
export const REQUIRED_SCOPE_KEY = 'requiredScope';

/**
 * Route guard after `JwtAuthGuard`: the caller's token must carry the route's required scope (RFC 8693 §4.2); no
 * scope implies another.
 * @throws ForbiddenException (403) naming the scope.
 */
@Injectable()
export class ScopeGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const scope = this.reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (scope === undefined) return true;
    const principal = context.switchToHttp().getRequest<{ user?: Principal }>().user;
    if (principal?.scopes.includes(scope)) return true;
    throw new ForbiddenException(missingScopeMessage(scope));
  }
}

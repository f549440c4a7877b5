import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { Principal } from './principal';

/** Route parameter: the authenticated {@link Principal} set by `JwtAuthGuard`. */
export const CurrentPrincipal = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Principal =>
    context.switchToHttp().getRequest<{ user: Principal }>().user,
);

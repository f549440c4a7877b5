import { applyDecorators, SetMetadata, UseGuards } from '@nestjs/common';
import { REQUIRED_SCOPE_KEY, ScopeGuard } from './scope.guard';

/** The route (or every route of the controller) needs a bearer token with `scope`; else 403. */
export const RequiredScope = (scope: string): MethodDecorator & ClassDecorator =>
  applyDecorators(SetMetadata(REQUIRED_SCOPE_KEY, scope), UseGuards(ScopeGuard));

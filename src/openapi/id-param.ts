import { ApiParam } from '@nestjs/swagger';
import type { ApiParamOptions } from '@nestjs/swagger';
import { INT4_MAX } from '../common/canonical-integer';

/** The OpenAPI of the id path parameter `name` of a `resource` (`blog`): what `@IdParam(name)` accepts (int4, canonical). */
export function idParamOptions(resource: string, name = 'id'): ApiParamOptions {
  return {
    name,
    description: `The ${resource} id: decimal digits, no sign or leading zero.`,
    schema: { type: 'integer', minimum: 1, maximum: INT4_MAX, example: 1 },
  };
}

/** Method decorator: documents the id path parameter `name` of a `resource` ({@link idParamOptions}). */
export const ApiIdParam = (resource: string, name = 'id'): MethodDecorator & ClassDecorator =>
  ApiParam(idParamOptions(resource, name));

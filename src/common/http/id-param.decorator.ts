import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { canonicalIntegerValue, INT4_MAX } from '../canonical-integer';
import { ValidationProblemException } from '../filters/problem-types';

/**
 * Parses the path parameter `name` as an id: `^[1-9][0-9]*$`, at most 2147483647 (int4).
 * @throws BadRequestException (400) naming `name`, for anything else.
 */
export function parseId(name: string, raw: unknown): number {
  const id = canonicalIntegerValue(raw);
  if (id !== undefined && id >= 1 && id <= INT4_MAX) return id;
  throw ValidationProblemException.parameter(name, idParamMessage(name));
}

/** The 400 message of a bad id in the path parameter `name`: `id must be a positive integer no greater than 2147483647`. */
export const idParamMessage = (name: string): string =>
  `${name} must be a positive integer no greater than ${INT4_MAX}`;

/** The parsed path parameter `name` (`:id`); parsed before any pipe runs, so a bad id is 400 before 415 and body checks. */
export const IdParam = createParamDecorator((name: string, context: ExecutionContext): number =>
  parseId(name, context.switchToHttp().getRequest<{ params: Record<string, string> }>().params[name]),
);

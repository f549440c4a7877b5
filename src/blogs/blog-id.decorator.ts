import { BadRequestException, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { canonicalIntegerValue, INT4_MAX } from '../common/canonical-integer';

/**
 * Parses a blog id as written in a path: `^[1-9][0-9]*$` and at most 2147483647 (int4), so no
 * sign, leading zero, space, decimal point or exponent. The syntax is the canonical integer of
 * query and environment values (`common/canonical-integer`), without `0`.
 *
 * @param raw - the `:id` path parameter; anything but a string is rejected.
 * @returns the id, 1–2147483647.
 * @throws BadRequestException (400) for anything else.
 */
export function parseBlogId(raw: unknown): number {
  const id = canonicalIntegerValue(raw);
  if (id !== undefined && id >= 1 && id <= INT4_MAX) return id;
  throw new BadRequestException(`id must be a positive integer no greater than ${INT4_MAX}`);
}

/**
 * Route parameter: the `:id` of the path, parsed by {@link parseBlogId}.
 *
 * The id is parsed while Nest extracts the handler's arguments, which happens before any pipe
 * runs, so a malformed id answers 400 before the content-type (415) and body (400) checks made by
 * the pipes, in the order the API contract sets: token → id → content type → body.
 */
export const BlogIdParam = createParamDecorator((_data: unknown, context: ExecutionContext): number =>
  parseBlogId(context.switchToHttp().getRequest<{ params: Record<string, string> }>().params.id),
);

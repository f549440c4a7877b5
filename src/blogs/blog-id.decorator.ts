import { BadRequestException, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { canonicalIntegerValue, INT4_MAX } from '../common/canonical-integer';

/**
 * Parses a path's blog id: `^[1-9][0-9]*$`, at most 2147483647 (int4).
 * @throws BadRequestException (400) for anything else.
 */
export function parseBlogId(raw: unknown): number {
  const id = canonicalIntegerValue(raw);
  if (id !== undefined && id >= 1 && id <= INT4_MAX) return id;
  throw new BadRequestException(`id must be a positive integer no greater than ${INT4_MAX}`);
}

/** The parsed `:id`; parsed before any pipe runs, so a bad id is 400 before the 415 and body checks. */
export const BlogIdParam = createParamDecorator((_data: unknown, context: ExecutionContext): number =>
  parseBlogId(context.switchToHttp().getRequest<{ params: Record<string, string> }>().params.id),
);

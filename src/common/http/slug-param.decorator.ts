import { BadRequestException, createParamDecorator, ExecutionContext } from '@nestjs/common';
import { isSlug, SLUG_MAX_LENGTH } from '../text/slug';

/**
 * The path parameter `name` as it is, when it is a slug (`isSlug`).
 * @throws BadRequestException (400) naming `name`, for anything else.
 */
export function parseSlug(name: string, raw: unknown): string {
  if (typeof raw === 'string' && isSlug(raw)) return raw;
  throw new BadRequestException(
    `${name} must be a slug: lower-case letters a-z and digits, in runs joined by single '-', at most ${SLUG_MAX_LENGTH} characters`,
  );
}

/** The path parameter `name` (`:slug`), checked by {@link parseSlug} before any pipe runs. */
export const SlugParam = createParamDecorator((name: string, context: ExecutionContext): string =>
  parseSlug(name, context.switchToHttp().getRequest<{ params: Record<string, string> }>().params[name]),
);

import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { isSlug, SLUG_MAX_LENGTH } from '../text/slug';
import { ValidationProblemException } from '../filters/problem-types';

/**
 * The path parameter `name` as it is, when it is a slug (`isSlug`) of at most `maxLength` characters.
 * @throws BadRequestException (400) naming `name`, for anything else.
 */
export function parseSlug(name: string, raw: unknown, maxLength: number = SLUG_MAX_LENGTH): string {
  if (typeof raw === 'string' && isSlug(raw, maxLength)) return raw;
  throw ValidationProblemException.parameter(
    name,
    `${name} must be a slug: lower-case letters a-z and digits, in runs joined by single '-', at most ${maxLength} characters`,
  );
}

const slugParam = createParamDecorator(
  ({ name, maxLength }: { name: string; maxLength: number }, context: ExecutionContext): string =>
    parseSlug(name, context.switchToHttp().getRequest<{ params: Record<string, string> }>().params[name], maxLength),
);

/**
 * The path parameter `name` (`:slug`), checked by {@link parseSlug} before any pipe runs; `maxLength`: the longest slug
 * of the resource (a longer one can name none: 400, not 404).
 */
export const SlugParam = (name: string, maxLength: number = SLUG_MAX_LENGTH): ParameterDecorator =>
  slugParam({ name, maxLength });

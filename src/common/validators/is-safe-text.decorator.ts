import { ValidateBy, ValidationOptions } from 'class-validator';

/**
 * Why a string is not acceptable as stored text, or undefined when it is. Text must contain a
 * character that is not Unicode White_Space (JavaScript's `\s` misses U+0085), no U+0000
 * (PostgreSQL `text` cannot store it) and no lone UTF-16 surrogate (it has no UTF-8 form, so it
 * could not be stored exactly as sent).
 */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain U+0000';
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (!/[^\p{White_Space}]/u.test(value)) return 'must not be whitespace only';
  return undefined;
}

/**
 * Property decorator: the value is a string that PostgreSQL can store exactly and that is not
 * blank (see {@link textProblem}). Non-strings pass here and are left to `@IsString()`.
 */
export function IsSafeText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSafeText',
      validator: {
        validate: (value: unknown): boolean => typeof value !== 'string' || textProblem(value) === undefined,
        defaultMessage: (args): string =>
          `${args?.property ?? 'value'} ${typeof args?.value === 'string' ? textProblem(args.value) : 'is invalid'}`,
      },
    },
    options,
  );
}

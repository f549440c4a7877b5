import { ValidateBy, ValidationOptions } from 'class-validator';

/** Why `value` is not acceptable text (docs/api.md, "Validation of title, content and author"), else undefined. */
function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain U+0000';
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (!/[^\p{White_Space}]/u.test(value)) return 'must not be whitespace only';
  return undefined;
}

/** Property decorator: a string passing {@link textProblem}; non-strings are left to `@IsString()`. */
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

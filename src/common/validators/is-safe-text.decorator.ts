import { ValidateBy, ValidationOptions } from 'class-validator';

/** Why `value` is not acceptable text (docs/api.md, "Validation of title, content and author"), else undefined. */
function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain U+0000';
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)';
  if (!/[^\p{White_Space}]/u.test(value)) return 'must not be whitespace only';
  return undefined;
}

/** Property decorator: a string (or, with `each`, strings) passing {@link textProblem}; non-strings are left to `@IsString()`. */
export function IsSafeText(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isSafeText',
      validator: {
        validate: (value: unknown): boolean => typeof value !== 'string' || textProblem(value) === undefined,
        // With `each`, the value is the array: the message names the first element's problem.
        defaultMessage: (args): string => {
          const values: unknown[] = Array.isArray(args?.value) ? args.value : [args?.value];
          const problem = values.map((v) => (typeof v === 'string' ? textProblem(v) : undefined)).find(Boolean);
          return `${args?.property ?? 'value'} ${problem ?? 'is invalid'}`;
        },
      },
    },
    options,
  );
}

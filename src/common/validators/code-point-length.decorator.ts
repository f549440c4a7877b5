import { ValidateBy, ValidationOptions } from 'class-validator';

/** Unicode code points in `value` (a surrogate pair counts once), as PostgreSQL's `char_length` counts them. */
function codePointLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** Property decorator: a string of `min` to `max` {@link codePointLength}; non-strings are left to `@IsString()`. */
export function CodePointLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'codePointLength',
      constraints: [min, max],
      validator: {
        validate: (value: unknown): boolean => {
          if (typeof value !== 'string') return true;
          const length = codePointLength(value);
          return length >= min && length <= max;
        },
        defaultMessage: (args): string => `${args?.property ?? 'value'} must be ${min} to ${max} characters long`,
      },
    },
    options,
  );
}

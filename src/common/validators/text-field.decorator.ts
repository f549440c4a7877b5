import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString, ValidateIf } from 'class-validator';
import { CodePointLength } from './code-point-length.decorator';
import { IsSafeText } from './is-safe-text.decorator';

/** What a {@link TextField}'s description says of its rules (the swagger plugin cannot read custom validators). */
export const TEXT_RULES = 'A JSON string stored exactly as sent; not whitespace only, no U+0000, no lone surrogates.';

/**
 * A text field: `min` to `max` code points (`min` 1 unless given), what it is, an example value, and whether it may be
 * left out (`optional`; `null` is still refused, as a merge patch refuses it).
 */
export interface TextFieldOptions {
  readonly min?: number;
  readonly max: number;
  readonly optional?: boolean;
  /** One sentence, before {@link TEXT_RULES}: `The title.` */
  readonly description: string;
  readonly example: string;
}

/**
 * Property decorator of a text field of a body: defined (unless `optional` and absent), a string, `min` to `max` code
 * points ({@link CodePointLength}), {@link IsSafeText}, each with its own message, checked in that order; its OpenAPI.
 */
export const TextField = ({
  min = 1,
  max,
  optional = false,
  description,
  example,
}: TextFieldOptions): PropertyDecorator =>
  // In the order TypeScript applies the same decorators stacked (docs/architecture.md, "Request flow").
  applyDecorators(
    ...(optional ? [ValidateIf((_object: object, value: unknown) => value !== undefined)] : []),
    IsDefined(),
    IsString(),
    CodePointLength(min, max),
    IsSafeText(),
    ApiProperty({
      type: String,
      ...(optional ? { required: false } : {}),
      minLength: min,
      maxLength: max,
      description: `${description} ${TEXT_RULES}`,
      example,
    }),
  );

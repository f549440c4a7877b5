import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { CodePointLength } from './code-point-length.decorator';
import { IsSafeText } from './is-safe-text.decorator';

/** What a {@link TextField}'s description says of its rules (the swagger plugin cannot read custom validators). */
export const TEXT_RULES = 'A JSON string stored exactly as sent; not whitespace only, no U+0000, no lone surrogates.';

/** A required text field: `min` to `max` code points (`min` 1 unless given), what it is, and an example value. */
export interface TextFieldOptions {
  readonly min?: number;
  readonly max: number;
  /** One sentence, before {@link TEXT_RULES}: `The title.` */
  readonly description: string;
  readonly example: string;
}

/**
 * Property decorator of a required text field of a body: defined, a string, `min` to `max` code points
 * ({@link CodePointLength}), {@link IsSafeText}, each with its own message, checked in that order; and its OpenAPI.
 */
export const TextField = ({ min = 1, max, description, example }: TextFieldOptions): PropertyDecorator =>
  // In the order TypeScript applies the same decorators stacked (bottom-up): the first failing rule is reported.
  applyDecorators(
    IsDefined(),
    IsString(),
    CodePointLength(min, max),
    IsSafeText(),
    ApiProperty({ type: String, minLength: min, maxLength: max, description: `${description} ${TEXT_RULES}`, example }),
  );

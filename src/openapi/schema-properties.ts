import { ApiProperty } from '@nestjs/swagger';
import { INT4_MAX } from '../common/canonical-integer';

/** A response's int4 id (its own or another resource's): an integer from 1 to {@link INT4_MAX}. */
export const IdProperty = (options: { readonly description?: string; readonly example: number }): PropertyDecorator =>
  ApiProperty({ type: 'integer', minimum: 1, maximum: INT4_MAX, ...options });

/** A response's instant: a `date-time` string, ISO 8601 UTC with milliseconds and `Z`. */
export const InstantProperty = (options: {
  readonly description?: string;
  readonly example: string;
}): PropertyDecorator => ApiProperty({ type: String, format: 'date-time', ...options });

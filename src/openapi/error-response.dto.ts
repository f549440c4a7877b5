import { ApiProperty } from '@nestjs/swagger';
import type { ErrorBody } from '../common/filters/all-exceptions.filter';
import { ClosedSchema } from './schema-rules';

/** OpenAPI schema of {@link ErrorBody} (docs/api.md, "Errors"); documentation only. */
@ClosedSchema()
export class ErrorResponse implements ErrorBody {
  @ApiProperty({ type: 'integer', description: 'The HTTP status code of the response.', example: 404 })
  readonly statusCode!: number;

  @ApiProperty({ description: 'The reason phrase of the status (RFC 9110 §15).', example: 'Not Found' })
  readonly error!: string;

  @ApiProperty({
    description: 'What went wrong: one message, or a list of messages for validation errors.',
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    ],
    example: 'Blog 42 not found',
  })
  readonly message!: string | readonly string[];
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ErrorBody } from '../common/filters/all-exceptions.filter';
import type { InvalidParam } from '../common/filters/problem-types';
import { ClosedSchema } from './schema-rules';

/** OpenAPI schema of {@link ErrorBody}, a problem details object (RFC 9457; docs/api.md, "Errors"); documentation only. */
@ClosedSchema()
export class Problem implements ErrorBody {
  @ApiProperty({
    format: 'uri-reference',
    description:
      'The problem type (RFC 9457 §3.1.1): `about:blank`, or `<PUBLIC_URL>/problems/<name>` for the problems a ' +
      'client acts on (validation-error, precondition-failed, slug-taken, rate-limited, idempotency-key-reused, ' +
      'idempotency-key-in-flight); `GET` it for a short page on what it means and what to do.',
    example: 'about:blank',
  })
  readonly type!: string;

  @ApiProperty({
    description: "The problem type's title, or the status's reason phrase for `about:blank`.",
    example: 'Not Found',
  })
  readonly title!: string;

  @ApiProperty({ type: 'integer', description: 'The HTTP status code, as `statusCode`.', example: 404 })
  readonly status!: number;

  @ApiProperty({ description: '`message` as one string (a list joined with `; `).', example: 'Blog 42 not found' })
  readonly detail!: string;

  @ApiProperty({
    format: 'uri-reference',
    description: "The request's path, without its query.",
    example: '/api/v1/blogs/42',
  })
  readonly instance!: string;

  @ApiProperty({ type: 'integer', description: 'The HTTP status code (1.x).', example: 404 })
  readonly statusCode!: number;

  @ApiProperty({ description: 'The reason phrase of the status (RFC 9110 §15; 1.x).', example: 'Not Found' })
  readonly error!: string;

  @ApiProperty({
    description: 'What went wrong (1.x): one message, or a list of messages for validation errors.',
    oneOf: [
      { type: 'string', minLength: 1 },
      { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 },
    ],
    example: 'Blog 42 not found',
  })
  readonly message!: string | readonly string[];

  @ApiPropertyOptional({
    description:
      'Only on a `validation-error`: each broken rule, with a JSON Pointer (RFC 6901) into the body (`""` is the ' +
      'whole body) or the name of a query or path parameter.',
    type: 'array',
    minItems: 1,
    items: {
      oneOf: [
        {
          type: 'object',
          required: ['detail', 'pointer'],
          additionalProperties: false,
          properties: {
            detail: { type: 'string', minLength: 1 },
            pointer: { type: 'string', description: 'A JSON Pointer (RFC 6901) into the body.', example: '/tags/3' },
          },
        },
        {
          type: 'object',
          required: ['detail', 'parameter'],
          additionalProperties: false,
          properties: {
            detail: { type: 'string', minLength: 1 },
            parameter: { type: 'string', description: 'A query or path parameter.', example: 'limit' },
          },
        },
      ],
    },
  })
  readonly errors?: readonly InvalidParam[];
}

import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { HeadersObject } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import { RETRY_AFTER_SECONDS } from '../common/filters/all-exceptions.filter';
import { ErrorResponse } from './error-response.dto';

/** The error statuses the blog operations answer, each with when it happens and an example message. */
export const API_ERRORS = {
  400: {
    description:
      'The id, the query, the body (malformed JSON, unknown or invalid fields) or an `If-Match` / ' +
      '`If-None-Match` value is invalid.',
    example: ['title must be shorter than or equal to 200 characters'],
  },
  401: {
    description:
      'No bearer token, or a rejected one (RFC 6750). `WWW-Authenticate` is `Bearer` when none was sent, ' +
      '`Bearer error="invalid_token"` when one was rejected.',
    example: 'A bearer token is required',
  },
  403: {
    description: 'The token is valid but its subject may not do this.',
    example: 'Only the owner of this blog (the token subject that created it) or a blogs:admin token may update it',
  },
  404: { description: 'No blog has this id.', example: 'Blog 42 not found' },
  412: {
    description:
      'A precondition does not hold (`If-Match` / `If-None-Match`, RFC 9110 §13.1): the blog changed since its ' +
      '`ETag` was read. Nothing was changed.',
    example: 'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
  },
  413: { description: 'The body is larger than 1 MiB (1,048,576 bytes).', example: 'request entity too large' },
  415: {
    description:
      'The body is not of a media type the operation takes (`application/json`; on PATCH also ' +
      '`application/merge-patch+json`), optionally with `charset=utf-8`.',
    example: 'Content-Type must be application/json (optionally with charset=utf-8)',
  },
  429: {
    description:
      'Too many requests: the client spent its budget (reads per client address, writes per token `sub`, ' +
      '`RATE_LIMIT_*`); retry after `Retry-After` seconds. Nothing was changed.',
    example: 'Too many requests; retry after 42 s',
  },
  503: {
    description: 'The database cannot be reached; retry after `Retry-After` seconds.',
    example: 'The database is unavailable; retry later',
  },
} as const satisfies Record<number, { readonly description: string; readonly example: string | readonly string[] }>;

/** An error status the blog operations document. */
export type ApiErrorStatus = keyof typeof API_ERRORS;

const HEADERS: Partial<Record<ApiErrorStatus, HeadersObject>> = {
  401: {
    'WWW-Authenticate': {
      description: 'The bearer challenge (RFC 6750 §3).',
      schema: { type: 'string', example: 'Bearer error="invalid_token"' },
    },
  },
  429: {
    'Retry-After': {
      description: 'Seconds until the budget is spendable again (RFC 9110 §10.2.3, RFC 6585 §4).',
      schema: { type: 'integer', minimum: 1, example: 42 },
    },
  },
  503: {
    'Retry-After': {
      description: 'Seconds to wait before retrying (RFC 9110 §10.2.3).',
      schema: { type: 'integer', example: RETRY_AFTER_SECONDS },
    },
  },
};

/** Documents `statuses` of an operation, each with {@link ErrorResponse}, an example and its headers. */
export function ApiErrorResponses(...statuses: readonly ApiErrorStatus[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: API_ERRORS[status].description,
        type: ErrorResponse,
        headers: HEADERS[status],
        example: { statusCode: status, error: STATUS_CODES[status], message: API_ERRORS[status].example },
      }),
    ),
  );
}

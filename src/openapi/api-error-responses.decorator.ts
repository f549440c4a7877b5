import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, DECORATORS, getSchemaPath } from '@nestjs/swagger';
import type { HeadersObject } from '@nestjs/swagger';
import { STATUS_CODES } from 'node:http';
import {
  ErrorBody,
  PROBLEM_MEDIA_TYPE,
  PROBLEMS_PATH,
  RETRY_AFTER_SECONDS,
} from '../common/filters/all-exceptions.filter';
import { PROBLEM_TYPES, ProblemTypeName } from '../common/filters/problem-types';
import { MAX_BODY_BYTES } from '../common/http/json-body.reader';
import { notFound, notOwner, preconditionFailed, ResourceWording } from '../common/http/write-refusal';
import { JSON_CHARSET, JSON_MEDIA_TYPE, MERGE_PATCH_MEDIA_TYPE } from '../common/http/json-content-type';
import { Problem } from './problem.dto';

/** An error status an operation documents: when it happens, an example message, and its problem type if any. */
export interface ApiError {
  readonly description: string;
  readonly example: string | readonly string[];
  readonly problemType?: ProblemTypeName;
}

/** The `PUBLIC_URL` of the examples. */
const EXAMPLE_PUBLIC_URL = 'https://api.blog.example';

/** The errors of every module's operations; a module declares its own (403, 404, 412, …) with {@link defineApiErrorResponses}. */
const SHARED_API_ERRORS = {
  400: {
    description:
      'The id, the query, the body (malformed JSON, unknown or invalid fields) or an `If-Match` / ' +
      '`If-None-Match` value is invalid.',
    example: ['title must be shorter than or equal to 200 characters'],
    problemType: 'validation-error',
  },
  401: {
    description:
      'No bearer token, or a rejected one (RFC 6750). `WWW-Authenticate` is `Bearer` when none was sent, ' +
      '`Bearer error="invalid_token"` when one was rejected.',
    example: 'A bearer token is required',
  },
  413: {
    description: `The body is larger than ${MAX_BODY_BYTES / 2 ** 20} MiB (${MAX_BODY_BYTES.toLocaleString('en-US')} bytes).`,
    example: 'request entity too large',
  },
  415: {
    description:
      `The body is not of a media type the operation takes (\`${JSON_MEDIA_TYPE}\`; on PATCH also ` +
      `\`${MERGE_PATCH_MEDIA_TYPE}\`), optionally with \`charset=${JSON_CHARSET}\`.`,
    example: `Content-Type must be ${JSON_MEDIA_TYPE} (optionally with charset=${JSON_CHARSET})`,
  },
  429: {
    description:
      'Too many requests: the client spent its budget (reads per client address, writes per token `sub`, ' +
      '`RATE_LIMIT_*`); retry after `Retry-After` seconds. Nothing was changed.',
    example: 'Too many requests; retry after 42 s',
    problemType: 'rate-limited',
  },
  503: {
    description:
      'The database (or the identity provider) cannot be reached, readiness failed, or a filtered list waited too long ' +
      'for its turn; retry after `Retry-After` seconds.',
    example: 'The database is unavailable; retry later',
  },
} as const satisfies Record<number, ApiError>;

/** An error status every module's operations may document. */
type SharedErrorStatus = keyof typeof SHARED_API_ERRORS;

const HEADERS: Partial<Record<number, HeadersObject>> = {
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

/** An example {@link Problem} of `status` with `message` (the examples' path is a blog's). */
function exampleProblem(status: number, { example, problemType }: ApiError): ErrorBody {
  const reason = STATUS_CODES[status] ?? 'Error';
  return {
    type: problemType === undefined ? 'about:blank' : `${EXAMPLE_PUBLIC_URL}/${PROBLEMS_PATH}/${problemType}`,
    title: problemType === undefined ? reason : PROBLEM_TYPES[problemType].title,
    status,
    detail: typeof example === 'string' ? example : example.join('; '),
    instance: '/api/v1/blogs/42',
    statusCode: status,
    error: reason,
    message: example,
    ...(problemType === 'validation-error'
      ? { errors: (typeof example === 'string' ? [example] : example).map((detail) => ({ detail, pointer: '/title' })) }
      : {}),
  };
}

/**
 * The OpenAPI answer of an error `status`: a {@link Problem} as `application/problem+json` (or `application/json`
 * when the request's `Accept` asks for it), with an example and the status's headers.
 */
export function ApiProblemResponse(status: number, error: ApiError): MethodDecorator & ClassDecorator {
  const schema = { $ref: getSchemaPath(Problem) };
  const example = exampleProblem(status, error);
  const documented = (target: object, key?: string | symbol, descriptor?: PropertyDescriptor): void => {
    const responses = Reflect.getMetadata(
      DECORATORS.API_RESPONSE,
      (descriptor?.value as object | undefined) ?? target,
    ) as Record<string, { content?: Record<string, ExampleHolder> }> | undefined;
    const earlier = responses?.[status]?.content?.[PROBLEM_MEDIA_TYPE];
    const problem = earlier
      ? { schema, examples: { ...examplesOf(earlier), ...examplesOf({ example }) } }
      : { schema, example };
    ApiResponse({
      status,
      description: error.description,
      headers: HEADERS[status],
      content: { [PROBLEM_MEDIA_TYPE]: problem, 'application/json': { schema } },
    })(target, key as string | symbol, descriptor as PropertyDescriptor);
  };
  return applyDecorators(ApiExtraModels(Problem), documented);
}

/** A media type's example or examples, as OpenAPI writes them. */
interface ExampleHolder {
  readonly example?: ErrorBody;
  readonly examples?: Record<string, { value: ErrorBody }>;
}

/** The named examples of an earlier answer of the same status (a status with two causes documents both). */
function examplesOf({ example, examples }: ExampleHolder): Record<string, { value: ErrorBody }> {
  if (examples) return examples;
  if (!example) return {};
  const name = /\/problems\/([a-z-]+)$/.exec(example.type)?.[1] ?? example.title.toLowerCase().replace(/\W+/g, '-');
  return { [name]: { value: example } };
}

/**
 * A module's `ApiErrorResponses(...statuses)`: documents each status of an operation with {@link Problem}, an
 * example and its headers; `own` adds the module's statuses (or rewords shared ones).
 */
export function defineApiErrorResponses<S extends number>(
  own: Readonly<Record<S, ApiError>>,
): (...statuses: readonly (S | SharedErrorStatus)[]) => MethodDecorator & ClassDecorator {
  const errors: Readonly<Record<number, ApiError>> = { ...SHARED_API_ERRORS, ...own };
  return (...statuses) => applyDecorators(...statuses.map((status) => ApiProblemResponse(status, errors[status])));
}

/** The 403 of a write that only the owners of a `wording` resource may make; the example says `what` as the service does ("update it"). */
export const notOwnerError = (wording: ResourceWording, what: string, description: string): ApiError => ({
  description,
  example: notOwner(wording, what).message,
});

/** The 404 of a `wording` resource `id` that is missing or hidden from the caller, in the service's words. */
export const notFoundError = (wording: ResourceWording, id: number, description: string): ApiError => ({
  description,
  example: notFound(wording, id).message,
});

/** The 412 of a write to a `wording` resource `id` whose `If-Match` / `If-None-Match` does not hold. */
export const changedError = (
  wording: ResourceWording,
  id: number,
  description = 'A precondition does not hold (`If-Match` / `If-None-Match`, RFC 9110 §13.1): the ' +
    `${wording.noun} changed since its \`ETag\` was read. Nothing was changed.`,
): ApiError => ({ description, example: preconditionFailed(wording, id).message, problemType: 'precondition-failed' });

/** `ApiErrorResponses(...statuses)` of the shared errors alone, for operations with none of their own. */
export const ApiErrorResponses = defineApiErrorResponses({});

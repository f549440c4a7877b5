import { applyDecorators, type Type } from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { ApiOperationOptions } from '@nestjs/swagger';
import { missingScopeMessage } from '../auth/scope.guard';
import {
  ApiConditionalRead,
  ApiPreconditionHeaders,
  entityTagHeader,
  linkNextHeader,
  ResponseHeaders,
} from './conditional-request';
import { ApiIdParam } from './id-param';
import { BEARER_SCHEME } from './openapi';
import { OPTIONAL_BEARER, publicReadHeaders } from './read-access';

/** A `@ReadAccess()` operation: `operation` with the bearer token optional. */
export const ApiPublicOperation = (operation: ApiOperationOptions): MethodDecorator =>
  ApiOperation({ ...operation, security: OPTIONAL_BEARER });

/** An operation that needs a bearer token. */
export const ApiTokenOperation = (operation: ApiOperationOptions): MethodDecorator =>
  applyDecorators(ApiOperation(operation), ApiBearerAuth(BEARER_SCHEME));

/**
 * 200 of a public list: one page of `plural` (`type`, a list envelope) with its `Surrogate-Key`s `keys`, and when
 * the list has cursors, `Link` to the next page (`nextLink` an example).
 */
export const ApiListPage = (type: Type<unknown>, plural: string, keys: string, nextLink?: string): MethodDecorator =>
  ApiOkResponse({
    type,
    description:
      nextLink === undefined
        ? `One page of ${plural} with the total and the effective paging.`
        : `One page of ${plural} with the total, the effective paging and the cursor of the next page.`,
    headers:
      nextLink === undefined
        ? publicReadHeaders(keys)
        : { ...publicReadHeaders(keys), ...linkNextHeader(nextLink, plural) },
  });

/** 201 of a create: the `noun` (`type`) as stored, its path in `Location` (`location` an example) and `headers`. */
export const ApiCreatedAt = (
  type: Type<unknown>,
  noun: string,
  location: string,
  headers: ResponseHeaders,
): MethodDecorator =>
  ApiCreatedResponse({
    type,
    description: `The ${noun} as stored.`,
    headers: {
      Location: { description: `The path of the new ${noun}.`, schema: { type: 'string', example: location } },
      ...headers,
    },
  });

/** A public conditional read of one `noun` (`type`) by its id: 200 or 304 with `headers` (ETag, cache headers). */
export const ApiReadById = (
  operation: ApiOperationOptions,
  noun: string,
  type: Type<unknown>,
  headers: ResponseHeaders,
): MethodDecorator =>
  applyDecorators(ApiPublicOperation(operation), ApiIdParam(noun), ApiConditionalRead(type, noun, headers));

/** A delete of one `noun` by its id with a bearer token: 204; `preconditions`: with `If-Match` / `If-None-Match`. */
export const ApiDeleteById = (
  operation: ApiOperationOptions,
  noun: string,
  { preconditions = false }: { readonly preconditions?: boolean } = {},
): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation(operation),
    ApiIdParam(noun),
    ...(preconditions ? [ApiPreconditionHeaders('Delete', noun)] : []),
    ApiNoContentResponse({ description: 'Deleted; no body.' }),
  );

/**
 * A public read of what belongs to blog `{id}` (`GET /blogs/{id}/comments`): the operation, the blog's id parameter
 * and `answer`, its 200 ({@link ApiListPage} for a list).
 */
export const ApiReadUnderBlog = (operation: ApiOperationOptions, answer: MethodDecorator): MethodDecorator =>
  applyDecorators(ApiPublicOperation(operation), ApiIdParam('blog'), answer);

/**
 * A PUT that sets one `noun` (`type`) with a bearer token: 201 when it made the `noun`, 200 when it was there
 * already, both with `headers`.
 */
export const ApiPutAnswers = (
  operation: ApiOperationOptions,
  noun: string,
  type: Type<unknown>,
  headers: ResponseHeaders = {},
): MethodDecorator =>
  applyDecorators(
    ApiTokenOperation(operation),
    ApiCreatedResponse({ type, description: `The ${noun}, made by this request.`, headers }),
    ApiOkResponse({ type, description: `The ${noun}, as it was already.`, headers }),
  );

/** What {@link ApiDocumentRead}'s answers carry besides `ETag`: the `Surrogate-Key`s and what `Last-Modified` is. */
interface DocumentHeaders {
  readonly keys: string;
  /** What `Last-Modified` names, before "(HTTP date, RFC 9110 §8.8.2)". */
  readonly lastModified: string;
}

/**
 * A public conditional read of a `noun` that is not JSON (XML, a feed): 200 with its text in `mediaType` (`example`),
 * or 304 (`If-None-Match`, else `If-Modified-Since`), with `ETag`, `Last-Modified` and the public read's headers.
 */
export const ApiDocumentRead = (
  mediaType: string,
  noun: string,
  example: string,
  { keys, lastModified }: DocumentHeaders,
): MethodDecorator => {
  const headers: ResponseHeaders = {
    ...entityTagHeader(noun, 'it changes with its text', '"3q2-7wEjRWeJq83vEjRWeA"'),
    'Last-Modified': {
      description: `${lastModified} (HTTP date, RFC 9110 §8.8.2).`,
      schema: { type: 'string', example: 'Sun, 29 Nov 2026 07:30:00 GMT' },
    },
    ...publicReadHeaders(keys),
  };
  return applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: `Entity tags (or \`*\`); when one matches the ${noun}'s \`ETag\` the answer is 304.`,
    }),
    ApiHeader({
      name: 'If-Modified-Since',
      required: false,
      description: `Without \`If-None-Match\`: 304 when the ${noun}'s \`Last-Modified\` is not later.`,
    }),
    ApiOkResponse({
      description: `The ${noun}.`,
      headers,
      content: { [mediaType.split(';')[0]]: { schema: { type: 'string', example } } },
    }),
    ApiResponse({ status: 304, description: 'Not Modified: the condition matched; no body.', headers }),
  );
};

/** OpenAPI of a controller whose every route needs a bearer token: its tag. */
export const ApiTokenResource = (tag: string): ClassDecorator => applyDecorators(ApiTags(tag), ApiBearerAuth());

/** The 403 of routes that need `scope` (`@RequiredScope`), for `defineApiErrorResponses`. */
export const missingScope = (scope: string): { readonly description: string; readonly example: string } => ({
  description: `The token lacks the scope \`${scope}\`.`,
  example: missingScopeMessage(scope),
});

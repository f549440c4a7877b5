import { applyDecorators, type Type } from '@nestjs/common';
import { ApiHeader, ApiOkResponse, ApiResponse } from '@nestjs/swagger';

/** An OpenAPI response headers object. */
export type ResponseHeaders = Record<string, { description: string; required?: boolean; schema: object }>;

/**
 * The `ETag` response header of a `noun`'s answer (RFC 9110 §8.8.3); `changes` says when it changes ("it changes with
 * every update"), `example` is a tag as the service makes them.
 */
export function entityTagHeader(noun: string, changes: string, example: string): ResponseHeaders {
  return {
    ETag: {
      description: `Strong entity tag of the ${noun} (RFC 9110 §8.8.3); ${changes}.`,
      schema: { type: 'string', example },
    },
  };
}

/** A conditional read of one `noun` (`If-None-Match`): 200 with `type` and `headers`, or 304 with them and no body. */
export const ApiConditionalRead = (type: Type<unknown>, noun: string, headers: ResponseHeaders): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: `Entity tags (or \`*\`); when one matches the ${noun}'s current \`ETag\` (weak comparison) the answer is 304.`,
    }),
    ApiOkResponse({ type, description: `The ${noun}.`, headers }),
    ApiResponse({ status: 304, description: 'Not Modified: `If-None-Match` matched; no body.', headers }),
  );

/** The `If-Match` and `If-None-Match` headers of a write to a `noun` (RFC 9110 §13.1); `action` starts them ("Update"). */
export const ApiPreconditionHeaders = (action: string, noun: string): MethodDecorator =>
  applyDecorators(
    ApiHeader({
      name: 'If-Match',
      required: false,
      description: `${action} only if the ${noun}'s current \`ETag\` is one of these (strong comparison), or it exists (\`*\`).`,
    }),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      description: `${action} only if the ${noun}'s current \`ETag\` is none of these (\`*\`: never, since the ${noun} exists).`,
    }),
  );

/** Where a write's precondition checks fall among its others, for an operation's description. */
export const PRECONDITION_CHECKS =
  'With `If-Match` / `If-None-Match` (RFC 9110 §13.1), a malformed value is 400 after the body checks, and a ' +
  'precondition that does not hold is 412 after ownership; nothing is changed. Without them the last writer wins.';

/** The `Link` header of a page that has a next one (RFC 8288); `example` is such a link, `plural` what the list holds. */
export function linkNextHeader(example: string, plural = 'items'): ResponseHeaders {
  return {
    Link: {
      description:
        `Only when more ${plural} follow: \`<path?query>; rel="next"\` (RFC 8288), the same parameters with \`cursor\` ` +
        'in place of `offset`.',
      required: false,
      schema: { type: 'string', example },
    },
  };
}

// type-is (Express's `req.is` and body-parser's `type` matcher) ships no type declarations.
const typeIs = require('type-is') as {
  readonly is: (contentType: string, types: readonly string[]) => string | false;
};

/** The media type of request bodies. */
export const JSON_MEDIA_TYPE = 'application/json';

/** JSON Merge Patch (RFC 7396 §4): what a PATCH body is, besides {@link JSON_MEDIA_TYPE}. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

const JSON_BODY: readonly string[] = [JSON_MEDIA_TYPE];
const PATCH_BODY: readonly string[] = [MERGE_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE];

/** The one charset of JSON bodies (RFC 8259 §8.1). */
export const JSON_CHARSET = 'utf-8';

// Looser than RFC 9110, so that every charset body-parser might read is checked here.
const CHARSET_PARAMETER = /;[\t ]*charset[\t ]*=[\t ]*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/gi;

function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(CHARSET_PARAMETER)].map(([, quoted, token]) =>
    (quoted === undefined ? token.trim() : quoted.replace(/\\(.)/g, '$1')).toLowerCase(),
  );
}

/** The media types a request body of `method` may have, preferred first: PATCH also takes a JSON Merge Patch. */
export function bodyMediaTypes(method: string | undefined): readonly string[] {
  return method === 'PATCH' ? PATCH_BODY : JSON_BODY;
}

/**
 * Whether `contentType` is one of `mediaTypes` (by default `application/json`; no other `+json` type)
 * with no `charset` or `charset=utf-8` (docs/api.md).
 */
export function isJsonContentType(contentType: string | undefined, mediaTypes: readonly string[] = JSON_BODY): boolean {
  if (contentType === undefined || typeIs.is(contentType, mediaTypes) === false) return false;
  return charsetsOf(contentType).every((charset) => charset === JSON_CHARSET);
}

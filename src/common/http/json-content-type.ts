// type-is (Express's `req.is` and body-parser's `type` matcher) ships no type declarations.
const typeIs = require('type-is') as {
  readonly is: (contentType: string, types: readonly string[]) => string | false;
};

/** The media type of request bodies. */
export const JSON_MEDIA_TYPE = 'application/json';

/** The one charset of JSON bodies (RFC 8259 §8.1). */
export const JSON_CHARSET = 'utf-8';

// Looser than RFC 9110, so that every charset body-parser might read is checked here.
const CHARSET_PARAMETER = /;[\t ]*charset[\t ]*=[\t ]*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/gi;

function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(CHARSET_PARAMETER)].map(([, quoted, token]) =>
    (quoted === undefined ? token.trim() : quoted.replace(/\\(.)/g, '$1')).toLowerCase(),
  );
}

/** Whether `contentType` is `application/json` (not `+json`) with no `charset` or `charset=utf-8` (docs/api.md). */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || typeIs.is(contentType, [JSON_MEDIA_TYPE]) === false) return false;
  return charsetsOf(contentType).every((charset) => charset === JSON_CHARSET);
}

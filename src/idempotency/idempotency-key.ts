/** Longest key, in characters. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** A key: 1–255 characters from `!` to `~` (printable ASCII without space). */
const KEY = new RegExp(`^[\\x21-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/** A Structured Field string (RFC 8941 §3.3.3): `"…"` with `\\"` and `\\\\` escapes, printable ASCII inside. */
const SF_STRING = /^"((?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*)"$/;

/**
 * The key an `Idempotency-Key` header value names (IETF draft `httpapi-idempotency-key-header`): a Structured Field
 * string or the same characters unquoted (then not starting with `"`), 1–255 characters from `!` to `~`; undefined
 * when it names none.
 */
export function parseIdempotencyKey(value: string | string[]): string | undefined {
  if (typeof value !== 'string') return undefined;
  // A value that opens a quote is a Structured Field string or malformed, never a bare key.
  if (!value.startsWith('"')) return KEY.test(value) ? value : undefined;
  const quoted = SF_STRING.exec(value);
  const key = quoted?.[1].replace(/\\(["\\])/g, '$1');
  return key !== undefined && KEY.test(key) ? key : undefined;
}

/** Largest value of a PostgreSQL `integer` (int4): the bound of blog ids and list offsets. */
export const INT4_MAX = 2_147_483_647;

/** A non-negative integer written canonically: `0`, or digits without a leading zero. */
const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/**
 * class-transformer `@Transform` callback: turns a canonical decimal string (see
 * `CANONICAL_INTEGER`: no sign, leading zero, space, decimal point or exponent) into a number and
 * leaves anything else (arrays, `01`, `1e3`, `-1`, empty) unchanged, so a following `@IsInt()`
 * rejects it. Query strings and environment variables arrive as strings; this is the only
 * conversion they get.
 */
export function parseCanonicalInteger({ value }: { value: unknown }): unknown {
  return canonicalIntegerValue(value) ?? value;
}

/**
 * The number written by `text` when it is a canonical non-negative decimal integer (`0`, or
 * digits without a leading zero; see `parseCanonicalInteger`), else undefined — also for anything
 * that is not a string. Digits beyond `Number.MAX_SAFE_INTEGER` give a rounded (large) number, so
 * compare with the bound the caller needs.
 */
export function canonicalIntegerValue(text: unknown): number | undefined {
  return typeof text === 'string' && CANONICAL_INTEGER.test(text) ? Number(text) : undefined;
}

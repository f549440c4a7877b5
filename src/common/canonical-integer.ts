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
  return typeof value === 'string' && CANONICAL_INTEGER.test(value) ? Number(value) : value;
}

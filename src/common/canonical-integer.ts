/** Largest value of a PostgreSQL `integer` (int4): the bound of blog ids and list offsets. */
export const INT4_MAX = 2_147_483_647;

const CANONICAL_INTEGER = /^(0|[1-9][0-9]*)$/;

/**
 * `@Transform` callback: a canonical decimal string (see {@link canonicalIntegerValue}) becomes a number; anything
 * else (`01`, `1e3`, `-1`, arrays) is left unchanged for `@IsInt()` to reject.
 */
export function parseCanonicalInteger({ value }: { value: unknown }): unknown {
  return canonicalIntegerValue(value) ?? value;
}

/** The number `text` writes if it is `0` or digits without a leading zero, else undefined (rounded past 2^53). */
export function canonicalIntegerValue(text: unknown): number | undefined {
  return typeof text === 'string' && CANONICAL_INTEGER.test(text) ? Number(text) : undefined;
}

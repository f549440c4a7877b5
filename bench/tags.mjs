// The bench's tags, shared by the seeding (bench/bench.mjs) and the load (bench/load.mjs): `tag-1` …
// `tag-1000`, named `Tag 1` …, tag k drawn with probability ∝ 1/k (Zipf, exponent 1), so a few tags
// are on many blogs and most on few.

/** Tags in `tags`, inserted before any blog names one. */
export const TAGS = 1000;

/** The slug of tag number `k` (1 … {@link TAGS}). */
export const tagSlug = (k) => `tag-${k}`;

/** P(tag number ≤ k) for k = 1 … {@link TAGS}: the partial sums of 1/k ÷ H(TAGS), ascending, the last one 1. */
export const TAG_CUMULATIVE = (() => {
  const partial = [];
  let sum = 0;
  for (let k = 1; k <= TAGS; k += 1) partial.push((sum += 1 / k));
  return partial.map((value, i) => (i === TAGS - 1 ? 1 : value / sum));
})();

/**
 * The tag number of a uniform draw `u` in [0, 1): the first k with u < P(tag number ≤ k). The seeding's SQL
 * draws the same way: `width_bucket(u, <TAG_CUMULATIVE but its last>) + 1`.
 */
export function zipfTag(u) {
  let low = 0;
  let high = TAGS - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (u < TAG_CUMULATIVE[mid]) high = mid;
    else low = mid + 1;
  }
  return low + 1;
}

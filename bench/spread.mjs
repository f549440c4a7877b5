// The latency summary of the bench's load processes (bench/load.mjs, bench/churn.mjs).

/** The p50, p99 and largest of `values` (ms), rounded to `decimals` places (null when there are none). */
export function spread(values, decimals = 0) {
  const sorted = [...values].sort((a, b) => a - b);
  const round = (value) => Math.round(value * 10 ** decimals) / 10 ** decimals;
  const at = (q) =>
    sorted.length === 0 ? null : round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]);
  return { p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? null : round(sorted.at(-1)) };
}

/** Seconds to wait after each of the first failed attempts: the first retry within 15 s, then at most 60 s apart. */
const EARLY_DELAYS_SECONDS = [10, 30, 60, 60, 60, 60, 60] as const;

/** Longest wait between two attempts, in seconds. */
export const MAX_RETRY_DELAY_SECONDS = 3600;

/** A delivery is retried while it is younger than this, in seconds; the last attempt comes after it. */
export const RETRY_PERIOD_SECONDS = 24 * 3600;

/** A webhook whose attempts have all failed for this long is disabled, in seconds. */
export const DISABLE_AFTER_SECONDS = 5 * 24 * 3600;

/**
 * Seconds to wait after failed attempt `attempt` (1 for the first) before the next: 10, 30, then 60 until five
 * minutes have passed, then doubling from 120 up to {@link MAX_RETRY_DELAY_SECONDS}.
 */
export function retryDelaySeconds(attempt: number): number {
  if (attempt <= EARLY_DELAYS_SECONDS.length) return EARLY_DELAYS_SECONDS[attempt - 1];
  return Math.min(MAX_RETRY_DELAY_SECONDS, 60 * 2 ** (attempt - EARLY_DELAYS_SECONDS.length));
}

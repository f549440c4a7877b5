/** Largest rate-limit window, in seconds (one day). */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400;

/** Largest request budget per window; beyond it, turn the limits off (`RATE_LIMIT_ENABLED=false`). */
export const MAX_RATE_LIMIT = 1_000_000;

/** Names of the two budgets (also part of their storage keys). */
export const READS_THROTTLER = 'reads';
export const WRITES_THROTTLER = 'writes';

/** Default of `SHUTDOWN_TIMEOUT_MS`: how long requests in flight may run after SIGTERM, in ms. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** Largest `SHUTDOWN_TIMEOUT_MS` accepted (10 minutes). */
export const MAX_SHUTDOWN_TIMEOUT_MS = 600_000;

/** Time beyond the drain allowed for closing the application before the process exits anyway, in ms. */
export const CLOSE_GRACE_MS = 5_000;

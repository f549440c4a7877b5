/** Scope (in the token's `scope` claim) that allows managing webhooks; no other scope implies it. */
export const WEBHOOKS_ADMIN_SCOPE = 'webhooks:admin';

/** Longest webhook URL, in characters. */
export const WEBHOOK_URL_MAX_LENGTH = 2048;

/** Attempts a webhook's delivery log shows, newest first. */
export const WEBHOOK_LOG_SIZE = 100;

/** Days from its creation after which a delivery made or given up is deleted (docs/operations.md, "Jobs and webhooks"). */
export const FINISHED_DELIVERY_RETENTION_DAYS = 7;

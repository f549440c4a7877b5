/** Scope (in the token's `scope` claim) that allows reading the change feed; no other scope implies it. */
export const EVENTS_READ_SCOPE = 'events:read';

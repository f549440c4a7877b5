// Settings of the bearer tokens the service accepts and mints, shared by the strategy that
// verifies them, the guard that runs it and the minter that signs development tokens, so the two
// sides cannot drift apart.

/** Name under which `JwtStrategy` is registered with Passport and which `JwtAuthGuard` runs. */
export const JWT_STRATEGY = 'jwt';

/** The algorithm of the tokens this service mints (development tokens, `npm run token`); what it accepts is `JWT_ALGORITHMS`. */
export const JWT_ALGORITHM = 'HS256';

/** Allowed clock skew when checking `exp` and `nbf`, in seconds (API contract: 30 s). */
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;

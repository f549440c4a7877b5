/** Name under which `JwtStrategy` is registered with Passport and which `JwtAuthGuard` runs. */
export const JWT_STRATEGY = 'jwt';

/** Algorithm of the tokens this service mints (development tokens, `npm run token`). */
export const JWT_ALGORITHM = 'HS256';

/** Allowed clock skew when checking `exp` and `nbf`, in seconds. */
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;

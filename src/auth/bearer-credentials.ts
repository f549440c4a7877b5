import type { IncomingMessage } from 'node:http';

/**
 * `credentials = "Bearer" 1*SP b64token` with
 * `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="` (RFC 6750 §2.1), the
 * scheme name in any case (RFC 9110 §11.1), anchored at both ends so nothing may follow the token.
 */
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/** What the `Authorization` header of a request holds, as far as bearer tokens go. */
export type BearerCredentials =
  /** No bearer token was sent: no header, another scheme (e.g. `Basic`), or `Bearer` alone. */
  | { readonly kind: 'none' }
  /** The `Bearer` scheme followed by anything but exactly one b64token, e.g. `Bearer <jwt> x`. */
  | { readonly kind: 'malformed' }
  /** `Bearer <token>`; the token is not verified yet. */
  | { readonly kind: 'token'; readonly token: string };

const NONE: BearerCredentials = { kind: 'none' };
const MALFORMED: BearerCredentials = { kind: 'malformed' };

/**
 * Reads an `Authorization` header value strictly by RFC 6750 §2.1. passport-jwt's
 * `ExtractJwt.fromAuthHeaderAsBearerToken()` is not anchored and would take the first word of
 * `Bearer <jwt> trailing-garbage`; here that is `malformed`.
 *
 * @param authorization - the header value (Node.js keeps the first of repeated `Authorization`
 *   headers and strips surrounding whitespace).
 */
export function readBearerCredentials(authorization: string | undefined): BearerCredentials {
  if (authorization === undefined) return NONE;
  // The authentication scheme is what precedes the first space (RFC 9110 §11.3); a tab counts too,
  // so that `Bearer<TAB><jwt>` is a malformed bearer header rather than an unknown scheme.
  const scheme = authorization.split(/[ \t]/, 1)[0];
  if (scheme.toLowerCase() !== 'bearer') return NONE;
  // `Bearer` with nothing after it sends no token, like no header at all (RFC 6750 §3.1).
  if (/^[ \t]*$/.test(authorization.slice(scheme.length))) return NONE;
  const match = BEARER_CREDENTIALS.exec(authorization);
  return match ? { kind: 'token', token: match[1] } : MALFORMED;
}

/**
 * passport-jwt `jwtFromRequest` extractor built on {@link readBearerCredentials}.
 *
 * @returns the token of well-formed `Bearer` credentials, else null (passport-jwt then fails the
 *   request; `JwtAuthGuard` has already answered a missing or malformed header before that).
 */
export function bearerTokenFromRequest(request: IncomingMessage): string | null {
  const credentials = readBearerCredentials(request.headers.authorization);
  return credentials.kind === 'token' ? credentials.token : null;
}

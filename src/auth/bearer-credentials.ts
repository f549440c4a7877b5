import type { IncomingMessage } from 'node:http';

// RFC 6750 §2.1 `"Bearer" 1*SP b64token`, scheme in any case (RFC 9110 §11.1), nothing after the token.
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * What the `Authorization` header holds: no bearer token (no header, another scheme, `Bearer`
 * alone), a malformed one (e.g. `Bearer <jwt> x`), or one token, not verified yet.
 */
export type BearerCredentials =
  { readonly kind: 'none' } | { readonly kind: 'malformed' } | { readonly kind: 'token'; readonly token: string };

const NONE: BearerCredentials = { kind: 'none' };
const MALFORMED: BearerCredentials = { kind: 'malformed' };

/** Reads an `Authorization` header value strictly by RFC 6750 §2.1. */
export function readBearerCredentials(authorization: string | undefined): BearerCredentials {
  if (authorization === undefined) return NONE;
  // A tab ends the scheme too, so `Bearer<TAB><jwt>` is malformed rather than another scheme.
  const scheme = authorization.split(/[ \t]/, 1)[0];
  if (scheme.toLowerCase() !== 'bearer') return NONE;
  if (/^[ \t]*$/.test(authorization.slice(scheme.length))) return NONE;
  const match = BEARER_CREDENTIALS.exec(authorization);
  return match ? { kind: 'token', token: match[1] } : MALFORMED;
}

/** passport-jwt `jwtFromRequest`: the token of well-formed `Bearer` credentials, else null. */
export function bearerTokenFromRequest(request: IncomingMessage): string | null {
  const credentials = readBearerCredentials(request.headers.authorization);
  return credentials.kind === 'token' ? credentials.token : null;
}

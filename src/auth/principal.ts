/** Scope (in the token's space-separated `scope` claim) that allows updating any blog. */
export const BLOGS_ADMIN_SCOPE = 'blogs:admin';

/** The authenticated caller, taken from a verified JWT. */
export interface Principal {
  /** The token's `sub` claim (RFC 7519 §4.1.2). */
  readonly sub: string;
  /** The token's `scope` claim split on spaces (RFC 8693 §4.2); empty when absent. */
  readonly scopes: readonly string[];
}

/**
 * The claims {@link principalFromClaims} reads from a verified token (RFC 7519 §4.1 names, `scope`
 * from RFC 8693 §4.2). `iss`, `aud` and `nbf` are checked by the JWT verifier, not read here.
 */
export interface JwtClaims {
  readonly sub?: unknown;
  readonly exp?: unknown;
  readonly scope?: unknown;
}

/**
 * Builds the principal from verified claims, or undefined when a required claim is missing:
 * `exp` must be a number and `sub` a non-empty string (API contract, "Authentication").
 */
export function principalFromClaims(claims: JwtClaims): Principal | undefined {
  if (typeof claims.exp !== 'number' || typeof claims.sub !== 'string' || claims.sub === '') {
    return undefined;
  }
  const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ').filter((s) => s !== '') : [];
  return { sub: claims.sub, scopes };
}

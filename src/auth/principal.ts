/** The authenticated caller: a verified JWT's `sub` (RFC 7519 §4.1.2) and `scope` split on spaces (RFC 8693 §4.2). */
export interface Principal {
  readonly sub: string;
  readonly scopes: readonly string[];
}

/** The claims {@link principalFromClaims} checks in a verified token (RFC 7519 §4.1, RFC 8693 §4.2). */
export interface JwtClaims {
  readonly sub?: unknown;
  readonly exp?: unknown;
  readonly nbf?: unknown;
  readonly iat?: unknown;
  readonly scope?: unknown;
}

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * The principal of verified claims, or undefined: `exp` finite, `nbf` and `iat` finite when present,
 * `sub` a non-empty, well-formed Unicode string without U+0000.
 */
export function principalFromClaims(claims: JwtClaims): Principal | undefined {
  const { sub, exp, nbf, iat, scope } = claims;
  if (!isFiniteNumber(exp) || [nbf, iat].some((time) => time !== undefined && !isFiniteNumber(time))) return undefined;
  if (typeof sub !== 'string' || sub === '' || sub.includes('\u0000') || !sub.isWellFormed()) return undefined;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter((s) => s !== '') : [];
  return { sub, scopes };
}

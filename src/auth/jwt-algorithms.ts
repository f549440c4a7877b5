/**
 * JWS algorithms `JWT_ALGORITHMS` may list (RFC 7518 §3.1): HMAC ones verify with `JWT_SECRET`,
 * the others with the identity provider's public keys from `JWT_JWKS_URI`.
 */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Minimum `JWT_SECRET` length in UTF-8 bytes: the HS256 hash output (RFC 7518 §3.2). */
export const MIN_JWT_SECRET_BYTES = 32;

/** The keys a configuration has: an HMAC secret and/or the identity provider's JWK Set. */
interface JwtKeys {
  readonly secret?: string;
  readonly jwksUri?: string;
}

/** Whether `algorithm` is an HMAC one (a shared secret), as opposed to a public-key one. */
export const isHmacAlgorithm = (algorithm: string): boolean => algorithm.startsWith('HS');

/** Whether `secret` is at least {@link MIN_JWT_SECRET_BYTES} long. */
export const isLongEnoughSecret = (secret: string): boolean =>
  Buffer.byteLength(secret, 'utf8') >= MIN_JWT_SECRET_BYTES;

/** `listed` without duplicates or, when empty, HS256 with a secret and RS256 and ES256 with a JWK Set. */
export function acceptedAlgorithms(listed: readonly JwtAlgorithm[] | undefined, keys: JwtKeys): JwtAlgorithm[] {
  if (listed?.length) return [...new Set(listed)];
  return [
    ...(keys.secret !== undefined ? (['HS256'] as const) : []),
    ...(keys.jwksUri !== undefined ? (['RS256', 'ES256'] as const) : []),
  ];
}

/** The first of `algorithms` whose key `keys` lacks, with the variable that would provide it. */
export function unkeyedAlgorithm(
  algorithms: readonly JwtAlgorithm[],
  keys: JwtKeys,
): { algorithm: JwtAlgorithm; needs: 'JWT_SECRET' | 'JWT_JWKS_URI' } | undefined {
  for (const algorithm of algorithms) {
    if (isHmacAlgorithm(algorithm) && keys.secret === undefined) return { algorithm, needs: 'JWT_SECRET' };
    if (!isHmacAlgorithm(algorithm) && keys.jwksUri === undefined) return { algorithm, needs: 'JWT_JWKS_URI' };
  }
  return undefined;
}

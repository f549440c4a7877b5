import { ServiceUnavailableException } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { decode, JsonWebTokenError } from 'jsonwebtoken';
import type { SecretOrKeyProvider } from 'passport-jwt';
import { isHmacAlgorithm, JwtConfig } from '../config/environment';

/**
 * How the identity provider's keys are fetched and kept (jwks-rsa): keys are cached by `kid` for
 * 10 minutes (at most 16); a token with an unknown `kid` fetches the JWK Set again, which is how
 * a rotated key is picked up, but at most 10 times a minute, so tokens with made-up `kid`s cannot
 * make the service hammer the provider; one fetch may take 3 s.
 */
export const JWKS_CLIENT_OPTIONS = {
  cache: true,
  cacheMaxEntries: 16,
  cacheMaxAge: 10 * 60_000,
  rateLimit: true,
  jwksRequestsPerMinute: 10,
  timeout: 3_000,
} as const;

/** What passport-jwt's key callback is given: an error (the token is rejected) or the key. */
type KeyCallback = (error: unknown, key?: string | Buffer) => void;

/**
 * `JWT_SECRET` as a KeyObject, because jsonwebtoken turns a string key into one on every verify,
 * first by trying (and failing) to read it as a public key: a thrown error per request. Typed as
 * a Buffer, as passport-jwt's typings want; passport-jwt hands it to jsonwebtoken unchanged.
 */
export function hmacKey(secret: string): Buffer {
  return createSecretKey(Buffer.from(secret, 'utf8')) as unknown as Buffer;
}

/** jwks-rsa's `passportJwtSecret` provider. */
type JwksKeyProvider = (request: IncomingMessage, token: string, callback: KeyCallback) => void;

/** The `alg` of a compact JWS header, or undefined when the header cannot be read. */
function headerAlgorithm(token: string): string | undefined {
  const decoded = decode(token, { complete: true });
  const alg: unknown = decoded?.header.alg;
  return typeof alg === 'string' ? alg : undefined;
}

/**
 * jwks-rsa's verdict on a failed key lookup: an unknown `kid` (also one past the fetch rate
 * limit) is a rejected token (401); a JWK Set that cannot be fetched or read is the provider
 * being unavailable, which `JwtAuthGuard` answers 503 rather than blaming the token.
 */
function signingKeyError(error: Error | null, callback: (error: Error | null) => void): void {
  if (error === null) {
    callback(null);
    return;
  }
  if (error.name === 'SigningKeyNotFoundError' || error.name === 'JwksRateLimitError') {
    callback(new JsonWebTokenError('no signing key for this token'));
    return;
  }
  callback(new ServiceUnavailableException("The identity provider's signing keys cannot be fetched; retry later"));
}

/**
 * passport-jwt `secretOrKeyProvider` for a configuration with a JWKS URI. The key is chosen by
 * the token header's `alg`, which must be one of `JWT_ALGORITHMS`: an HMAC algorithm gets
 * `JWT_SECRET`, any other the identity provider's public key for the header's `kid`. So an
 * HS256 token signed with the provider's public key as an HMAC secret (algorithm confusion) is
 * checked against `JWT_SECRET` and fails; jsonwebtoken, given the same `algorithms`, also refuses
 * a public key for an HMAC algorithm.
 */
export function createJwksKeyProvider(jwt: JwtConfig & { readonly jwksUri: string }): SecretOrKeyProvider {
  // jwks-rsa (and its JOSE library) is loaded on the first token that needs it: a service
  // configured without a JWKS URI never loads it, and start-up does not wait for it.
  let fromJwks: Promise<JwksKeyProvider> | undefined;
  const jwksProvider = (): Promise<JwksKeyProvider> =>
    (fromJwks ??= import('jwks-rsa').then(
      ({ passportJwtSecret }) =>
        passportJwtSecret({
          ...JWKS_CLIENT_OPTIONS,
          jwksUri: jwt.jwksUri,
          handleSigningKeyError: signingKeyError,
        }) as JwksKeyProvider,
    ));
  const allowed: ReadonlySet<string> = new Set(jwt.algorithms);
  const secretKey = jwt.secret === undefined ? undefined : hmacKey(jwt.secret);
  return (request: IncomingMessage, token: string, callback: KeyCallback): void => {
    const algorithm = headerAlgorithm(token);
    if (algorithm === undefined || !allowed.has(algorithm)) {
      callback(new JsonWebTokenError('invalid algorithm'));
    } else if (isHmacAlgorithm(algorithm)) {
      if (secretKey === undefined) callback(new JsonWebTokenError('invalid algorithm'));
      else callback(null, secretKey);
    } else {
      jwksProvider().then(
        (provider) => provider(request, token, callback),
        (error: unknown) => callback(error),
      );
    }
  };
}

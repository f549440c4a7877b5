import { ServiceUnavailableException } from '@nestjs/common';
import { createSecretKey } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, errors, JSONWebKeySet, JWSHeaderParameters, KeyLike } from 'jose';
import { decode, JsonWebTokenError } from 'jsonwebtoken';
import type { SecretOrKeyProvider } from 'passport-jwt';
import type { JwtConfig } from '../config/auth.config';
import { isHmacAlgorithm } from './jwt-algorithms';

/** How long a fetched JWK Set is used before it is fetched again, in ms. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** Time limit of one JWK Set fetch, in ms. */
const JWKS_FETCH_TIMEOUT_MS = 3_000;

type KeyCallback = (error: unknown, key?: string | Buffer) => void;

/** `JWT_SECRET` as a KeyObject, typed as the Buffer passport-jwt's typings want. */
export function hmacKey(secret: string): Buffer {
  return createSecretKey(Buffer.from(secret, 'utf8')) as unknown as Buffer;
}

/**
 * The identity provider's JWK Set (RFC 7517 §5): fetched on first use, when older than
 * {@link JWKS_MAX_AGE_MS}, and for a `kid` it lacks — at most once per cooldown, shared by all callers.
 */
class RemoteJwkSet {
  private keys?: ReturnType<typeof createLocalJWKSet>;
  private fetchedAt = -Infinity;
  private attemptedAt = -Infinity;
  private pending?: Promise<void>;

  constructor(
    private readonly uri: string,
    private readonly cooldownMs: number,
  ) {}

  /**
   * The public key for a JWS header (`alg`, `kid`).
   * @throws jose's `JWKSNoMatchingKey` when the set has none; the fetch's error when there is no set.
   */
  async key(header: JWSHeaderParameters): Promise<KeyLike> {
    if (this.keys === undefined || Date.now() - this.fetchedAt > JWKS_MAX_AGE_MS) {
      // A stale set keeps serving while the provider is down.
      await this.refresh().catch((error: unknown) => {
        if (this.keys === undefined) throw error;
      });
    }
    if (this.keys === undefined) throw new Error('the JWK Set has not been fetched yet');
    try {
      return await this.keys(header);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey) || !(await this.refresh())) throw error;
      return await this.keys(header);
    }
  }

  // Resolves false, fetching nothing, during the cooldown.
  private async refresh(): Promise<boolean> {
    if (this.pending === undefined) {
      if (Date.now() - this.attemptedAt < this.cooldownMs) return false;
      this.attemptedAt = Date.now();
      this.pending = this.fetchSet().finally(() => (this.pending = undefined));
    }
    await this.pending;
    return true;
  }

  private async fetchSet(): Promise<void> {
    const response = await fetch(this.uri, { signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS), redirect: 'error' });
    if (!response.ok) throw new Error(`the JWK Set answered HTTP ${response.status}`);
    this.keys = createLocalJWKSet((await response.json()) as JSONWebKeySet);
    this.fetchedAt = Date.now();
  }
}

function headerOf(token: string): JWSHeaderParameters | undefined {
  const header: unknown = decode(token, { complete: true })?.header;
  return typeof header === 'object' && header !== null ? (header as JWSHeaderParameters) : undefined;
}

const isTokenProblem = (error: unknown): boolean =>
  error instanceof errors.JWKSNoMatchingKey ||
  error instanceof errors.JWKSMultipleMatchingKeys ||
  error instanceof errors.JOSENotSupported;

/**
 * passport-jwt `secretOrKeyProvider` for a JWKS URI: the header's `alg`, one of `JWT_ALGORITHMS`,
 * picks the key (`JWT_SECRET` for HMAC, else the provider's key for its `kid`).
 */
export function createJwksKeyProvider(jwt: JwtConfig & { readonly jwksUri: string }): SecretOrKeyProvider {
  const keySet = new RemoteJwkSet(jwt.jwksUri, jwt.jwksCooldownMs);
  const allowed: ReadonlySet<string> = new Set(jwt.algorithms);
  const secretKey = jwt.secret === undefined ? undefined : hmacKey(jwt.secret);
  return (_request: IncomingMessage, token: string, callback: KeyCallback): void => {
    const header = headerOf(token);
    if (header?.alg === undefined || !allowed.has(header.alg)) {
      callback(new JsonWebTokenError('invalid algorithm'));
    } else if (isHmacAlgorithm(header.alg)) {
      if (secretKey === undefined) callback(new JsonWebTokenError('invalid algorithm'));
      else callback(null, secretKey);
    } else {
      keySet.key(header).then(
        (key) => callback(null, key as unknown as Buffer),
        (error: unknown) =>
          callback(
            isTokenProblem(error)
              ? new JsonWebTokenError('no signing key for this token')
              : new ServiceUnavailableException("The identity provider's signing keys cannot be fetched; retry later"),
          ),
      );
    }
  };
}

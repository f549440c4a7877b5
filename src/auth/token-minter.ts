import { JwtService, JwtSignOptions } from '@nestjs/jwt';
import { JWT_ALGORITHM } from './jwt.constants';

/** What a development token says about its holder. */
export interface MintTokenOptions {
  /** `sub` claim: who the token stands for. */
  readonly sub: string;
  /** Space-separated `scope` claim, e.g. `blogs:admin`; omitted when empty. */
  readonly scope?: string;
  /** Lifetime: seconds, or a duration such as `15m`, `1h`, `7d`. */
  readonly ttl: NonNullable<JwtSignOptions['expiresIn']>;
}

/** Signing settings: the same secret, issuer and audience the service verifies with. */
export interface MintKey {
  readonly secret: string;
  readonly issuer?: string;
  readonly audience?: string;
}

/**
 * Signs an HS256 token the service accepts. Tokens are issued by an identity provider in
 * production; this exists for development, tests and the `npm run token` command.
 *
 * @returns the compact JWS (RFC 7515 §7.1).
 */
export function mintToken(key: MintKey, options: MintTokenOptions): string {
  const jwt = new JwtService({ secret: key.secret });
  const claims = options.scope ? { scope: options.scope } : {};
  return jwt.sign(claims, {
    algorithm: JWT_ALGORITHM,
    subject: options.sub,
    expiresIn: options.ttl,
    ...(key.issuer !== undefined && { issuer: key.issuer }),
    ...(key.audience !== undefined && { audience: key.audience }),
  });
}

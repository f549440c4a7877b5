import { JwtService, JwtSignOptions } from '@nestjs/jwt';
import { JWT_ALGORITHM } from './jwt.constants';

/** A development token's `sub`, space-separated `scope` (omitted when empty) and lifetime (seconds or `15m`, `1h`…). */
export interface MintTokenOptions {
  readonly sub: string;
  readonly scope?: string;
  readonly ttl: NonNullable<JwtSignOptions['expiresIn']>;
}

/** Signing settings: the secret, issuer and audience the service verifies with. */
interface MintKey {
  readonly secret: string;
  readonly issuer?: string;
  readonly audience?: string;
}

/** Signs an HS256 token the service accepts (development, tests, `npm run token`); the compact JWS (RFC 7515 §7.1). */
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

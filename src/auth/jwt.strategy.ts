import { createSecretKey } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { appConfig, AppConfigType } from '../config/app.config';
import { bearerTokenFromRequest } from './bearer-credentials';
import { BearerTokenException } from './bearer-token.exception';
import { JWT_ALGORITHM, JWT_CLOCK_TOLERANCE_SECONDS, JWT_STRATEGY } from './jwt.constants';
import { JwtClaims, Principal, principalFromClaims } from './principal';

/**
 * Passport strategy `jwt`: reads `Authorization: Bearer <JWT>` strictly (RFC 6750 §2.1, scheme
 * case-insensitive per RFC 9110 §11.1, nothing after the token; see `bearer-credentials.ts`),
 * verifies the HS256 signature with `JWT_SECRET`, `exp`/`nbf` with 30 s tolerance and `iss`/`aud`
 * when configured, then requires `exp` and `sub`.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(appConfig.KEY) config: AppConfigType) {
    super({
      jwtFromRequest: bearerTokenFromRequest,
      // A KeyObject, because jsonwebtoken turns a string key into one on every verify, first by
      // trying (and failing) to read it as a public key: a thrown error per request. Its typings
      // say string | Buffer; passport-jwt hands the value to jsonwebtoken unchanged.
      secretOrKey: createSecretKey(Buffer.from(config.jwt.secret, 'utf8')) as unknown as Buffer,
      algorithms: [JWT_ALGORITHM],
      issuer: config.jwt.issuer,
      audience: config.jwt.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS },
    });
  }

  /**
   * @returns the principal stored as `request.user`.
   * @throws BearerTokenException when the token lacks `exp` or `sub`.
   */
  validate(claims: JwtClaims): Principal {
    const principal = principalFromClaims(claims);
    if (!principal) throw BearerTokenException.invalid('token must carry exp and sub claims');
    return principal;
  }
}

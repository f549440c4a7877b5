import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { appConfig, AppConfigType } from '../config/app.config';
import { bearerTokenFromRequest } from './bearer-credentials';
import { BearerTokenException } from './bearer-token.exception';
import { JWT_CLOCK_TOLERANCE_SECONDS, JWT_STRATEGY } from './jwt.constants';
import { createJwksKeyProvider, hmacKey } from './jwt-key-provider';
import { JwtClaims, Principal, principalFromClaims } from './principal';

/**
 * Passport strategy `jwt`: reads `Authorization: Bearer <JWT>` strictly (RFC 6750 §2.1, scheme
 * case-insensitive per RFC 9110 §11.1, nothing after the token; see `bearer-credentials.ts`),
 * verifies the signature — HS256 with `JWT_SECRET`, and/or RS256/ES256 with the identity
 * provider's keys from `JWT_JWKS_URI` (see `createJwksKeyProvider`), only the algorithms of
 * `JWT_ALGORITHMS` — then `exp`/`nbf` with 30 s tolerance and `iss`/`aud` when configured, and
 * requires `exp` and `sub`.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(appConfig.KEY) config: AppConfigType) {
    const { jwt } = config;
    const keys =
      jwt.jwksUri !== undefined
        ? { secretOrKeyProvider: createJwksKeyProvider({ ...jwt, jwksUri: jwt.jwksUri }) }
        : // loadAppConfig guarantees a secret without a JWKS URI
          { secretOrKey: hmacKey(jwt.secret as string) };
    super({
      jwtFromRequest: bearerTokenFromRequest,
      ...keys,
      algorithms: [...jwt.algorithms],
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

import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-jwt';
import { authConfig } from '../config/auth.config';
import { bearerTokenFromRequest } from './bearer-credentials';
import { BearerTokenException } from './bearer-token.exception';
import { JWT_CLOCK_TOLERANCE_SECONDS, JWT_STRATEGY } from './jwt.constants';
import { createJwksKeyProvider, hmacKey } from './jwt-key-provider';
import { JwtClaims, Principal, principalFromClaims } from './principal';

/** Passport's `authInfo` of a verified token: its `exp` (seconds since the epoch), kept by `VerifiedTokens`. */
export interface VerifiedTokenInfo {
  readonly exp: number;
}

/**
 * Passport strategy `jwt`: verifies a bearer token (RFC 6750) with `JWT_SECRET` and/or the JWK Set
 * of `JWT_JWKS_URI`, only by `JWT_ALGORITHMS`, with 30 s clock tolerance and `iss`/`aud` when configured.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(authConfig.KEY) { jwt }: ConfigType<typeof authConfig>) {
    const keys =
      jwt.jwksUri !== undefined
        ? { secretOrKeyProvider: createJwksKeyProvider({ ...jwt, jwksUri: jwt.jwksUri }) }
        : // the auth configuration guarantees a secret without a JWKS URI
          { secretOrKey: hmacKey(jwt.secret as string) };
    super({
      jwtFromRequest: bearerTokenFromRequest,
      ...keys,
      algorithms: [...jwt.algorithms],
      issuer: jwt.issuer,
      audience: jwt.audience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: JWT_CLOCK_TOLERANCE_SECONDS },
    });
  }

  /**
   * @returns the principal stored as `request.user`, and the `exp` passport puts in `request.authInfo`.
   * @throws BearerTokenException when the token lacks a valid `exp` or `sub`.
   */
  validate(claims: JwtClaims): [Principal, VerifiedTokenInfo] {
    const principal = principalFromClaims(claims);
    if (!principal) throw BearerTokenException.invalid('token must carry exp and sub claims');
    // A principal only comes from claims whose `exp` is a finite number.
    return [principal, { exp: claims.exp as number }];
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { appConfig, AppConfigType } from '../config/app.config';
import { BearerTokenException } from './bearer-token.exception';
import { JwtClaims, Principal, principalFromClaims } from './principal';

/** The only signing algorithm accepted; pinned so `alg: none` and key confusion cannot pass. */
export const JWT_ALGORITHM = 'HS256';

/** Allowed clock skew when checking `exp` and `nbf`, in seconds (API contract). */
export const JWT_CLOCK_TOLERANCE_SECONDS = 30;

/**
 * Passport strategy `jwt`: reads `Authorization: Bearer <JWT>` (scheme case-insensitive,
 * RFC 9110 §11.1), verifies the HS256 signature with `JWT_SECRET`, `exp`/`nbf` with 30 s
 * tolerance and `iss`/`aud` when configured, then requires `exp` and `sub`.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(@Inject(appConfig.KEY) config: AppConfigType) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.jwt.secret,
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

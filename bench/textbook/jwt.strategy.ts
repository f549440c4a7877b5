import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';

/** Verifies the bench's HS256 bearer tokens (JWT_SECRET); the request's `user` is `{ sub }`. */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy) {
  constructor() {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: process.env.JWT_SECRET ?? '',
      algorithms: ['HS256'],
    });
  }

  validate(payload: { sub: string }): { sub: string } {
    return { sub: payload.sub };
  }
}

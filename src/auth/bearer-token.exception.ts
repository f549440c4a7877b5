import { UnauthorizedException } from '@nestjs/common';

/**
 * 401 Unauthorized for a bearer-token route, carrying the `WWW-Authenticate` challenge to send
 * (RFC 9110 §11.6.1, RFC 6750 §3): `Bearer` when no token was sent, and
 * `Bearer error="invalid_token"` when one was sent but rejected.
 */
export class BearerTokenException extends UnauthorizedException {
  private constructor(
    message: string,
    readonly challenge: string,
  ) {
    super(message);
  }

  /** No bearer token in the request. */
  static missing(): BearerTokenException {
    return new BearerTokenException('A bearer token is required', 'Bearer');
  }

  /** A token was sent but is not acceptable; `reason` is safe to show the client. */
  static invalid(reason: string): BearerTokenException {
    return new BearerTokenException(`Invalid bearer token: ${reason}`, 'Bearer error="invalid_token"');
  }
}

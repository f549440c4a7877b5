import { UnauthorizedException } from '@nestjs/common';

/** 401 Unauthorized with the `WWW-Authenticate` challenge to send (RFC 9110 §11.6.1, RFC 6750 §3). */
export class BearerTokenException extends UnauthorizedException {
  private constructor(
    message: string,
    readonly challenge: string,
  ) {
    super(message);
  }

  /** No bearer token in the request: challenge `Bearer`. */
  static missing(): BearerTokenException {
    return new BearerTokenException('A bearer token is required', 'Bearer');
  }

  /** A rejected token: challenge `Bearer error="invalid_token"`; `reason` is shown to the client. */
  static invalid(reason: string): BearerTokenException {
    return new BearerTokenException(`Invalid bearer token: ${reason}`, 'Bearer error="invalid_token"');
  }
}

import { BadRequestException, CanActivate, ExecutionContext, Injectable, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import type { Principal } from '../auth/principal';
import { canonicalPathOf } from '../common/http/matched-route';
import { rawJsonBodyOf, readJsonBody } from '../common/http/json-body.reader';
import type { KeptAnswer } from './idempotency-key.entity';
import { IDEMPOTENCY_KEY_MAX_LENGTH, parseIdempotencyKey } from './idempotency-key';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotentReplay } from './idempotent-replay';
import { IdempotencyKeyInFlightException, IdempotencyKeyReusedException } from '../common/filters/problem-types';

/**
 * SHA-256 of what makes two requests the same: method, path ({@link canonicalPathOf}: any letter case or alias of it,
 * as routing takes them; no query) and the body's bytes, or its type unread.
 */
function fingerprintOf(request: Request): Buffer {
  const body = rawJsonBodyOf(request);
  return createHash('sha256')
    .update(`${request.method} ${canonicalPathOf(request)}\n`)
    .update(body ?? `unread ${request.headers['content-type'] ?? ''}`)
    .digest();
}

/** The messages of the key's refusals: 409 while its first request runs, 422 for another request. */
export const IDEMPOTENCY_REFUSALS = {
  inFlight: 'A request with this Idempotency-Key is still in progress; retry later',
  reused: 'This Idempotency-Key was used with another request (method, path or body)',
} as const;

/**
 * `Idempotency-Key` on a write (IETF draft `httpapi-idempotency-key-header`), after the authentication guard: 400 for
 * a malformed key, 409 while the key's first request runs, 422 for the key with another method, path or body, else
 * the first answer again ({@link IdempotentReplay}) within 24 hours. A 2xx or 4xx answer is kept; a 5xx or 429 frees
 * the key. Without the header it lets the request through untouched. A guard, not an interceptor: any interceptor
 * costs every request of its route Nest's rxjs chain (docs/performance.md).
 * @throws BadRequestException (400), ConflictException (409), UnprocessableEntityException (422), IdempotentReplay
 */
@Injectable()
export class IdempotencyGuard implements CanActivate {
  private readonly logger = new Logger(IdempotencyGuard.name);

  constructor(private readonly keys: IdempotencyRepository) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user: Principal }>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return true;
    const key = parseIdempotencyKey(header);
    if (key === undefined) {
      throw new BadRequestException(
        `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters from ! to ~, bare or as a quoted string`,
      );
    }
    const response = http.getResponse<Response>();
    // The body is read here to compare it; its own errors answer after the key's checks, as the operation's.
    const bodyError = await readJsonBody(request, response).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    const owner = request.user.sub;
    const fingerprint = fingerprintOf(request);
    const claim = await this.keys.claim(owner, key, fingerprint);
    switch (claim.kind) {
      case 'in-flight':
        throw new IdempotencyKeyInFlightException(IDEMPOTENCY_REFUSALS.inFlight);
      case 'reused':
        throw new IdempotencyKeyReusedException(IDEMPOTENCY_REFUSALS.reused);
      case 'answered':
        throw new IdempotentReplay(claim.answer);
    }
    this.keepAnswer(response, (answer) =>
      answer.status >= 500 || answer.status === 429
        ? this.keys.free(owner, key, fingerprint)
        : this.keys.keep(owner, key, fingerprint, answer),
    );
    if (bodyError !== undefined) throw bodyError;
    return true;
  }

  /** Hands the JSON answer (a success or an error's) to `settle`, and sends it once settled. */
  private keepAnswer(response: Response, settle: (answer: KeptAnswer) => Promise<void>): void {
    const send = response.json.bind(response);
    response.json = (body: unknown) => {
      const location = response.getHeader('Location');
      const etag = response.getHeader('ETag');
      const answer: KeptAnswer = {
        status: response.statusCode,
        ...(typeof location === 'string' && { location }),
        ...(typeof etag === 'string' && { etag }),
        body,
      };
      settle(answer)
        .catch((error: unknown) => this.logger.error({ err: error }, 'could not keep the answer of an idempotency key'))
        .finally(() => send(body));
      return response;
    };
  }
}

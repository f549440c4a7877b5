import {
  BadRequestException,
  CallHandler,
  ConflictException,
  ExecutionContext,
  Injectable,
  Logger,
  NestInterceptor,
  UnprocessableEntityException,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { Observable, of, throwError } from 'rxjs';
import type { Principal } from '../auth/principal';
import { rawJsonBodyOf, readJsonBody } from '../common/http/json-body.reader';
import type { KeptAnswer } from './idempotency-key.entity';
import { IDEMPOTENCY_KEY_MAX_LENGTH, parseIdempotencyKey } from './idempotency-key';
import { IdempotencyRepository } from './idempotency.repository';

/** The header that marks a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** SHA-256 of what makes two requests the same: method, path (no query) and the body's bytes, or its type unread. */
function fingerprintOf(request: Request): Buffer {
  const body = rawJsonBodyOf(request);
  return createHash('sha256')
    .update(`${request.method} ${request.path}\n`)
    .update(body ?? `unread ${request.headers['content-type'] ?? ''}`)
    .digest();
}

/**
 * `Idempotency-Key` on a write (IETF draft `httpapi-idempotency-key-header`), after the guards: 400 for a malformed
 * key, 409 while the key's first request runs, 422 for the key with another method, path or body, else the first
 * answer again (status, body, `Location`, `ETag`, `Idempotent-Replayed: true`) within 24 hours. A 2xx or 4xx answer
 * is kept; a 5xx or 429 frees the key. Without the header the request passes untouched.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  private readonly logger = new Logger(IdempotencyInterceptor.name);

  constructor(private readonly keys: IdempotencyRepository) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const http = context.switchToHttp();
    const request = http.getRequest<Request & { user: Principal }>();
    const header = request.headers['idempotency-key'];
    if (header === undefined) return next.handle();
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
      (error: unknown) => error,
    );
    const owner = request.user.sub;
    const fingerprint = fingerprintOf(request);
    const claim = await this.keys.claim(owner, key, fingerprint);
    switch (claim.kind) {
      case 'in-flight':
        throw new ConflictException('A request with this Idempotency-Key is still in progress; retry later');
      case 'reused':
        throw new UnprocessableEntityException(
          'This Idempotency-Key was used with another request (method, path or body)',
        );
      case 'answered':
        this.replay(response, claim.answer);
        return of(claim.answer.body);
    }
    this.keepAnswer(response, (answer) =>
      answer.status >= 500 || answer.status === 429
        ? this.keys.free(owner, key, fingerprint)
        : this.keys.keep(owner, key, fingerprint, answer),
    );
    return bodyError === undefined ? next.handle() : throwError(() => bodyError);
  }

  /** Makes the response's JSON answer the kept one, whatever status the route would set. */
  private replay(response: Response, answer: KeptAnswer): void {
    const send = response.json.bind(response);
    response.json = () => {
      response.status(answer.status);
      if (answer.location !== undefined) response.setHeader('Location', answer.location);
      if (answer.etag !== undefined) response.setHeader('ETag', answer.etag);
      response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
      return send(answer.body);
    };
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

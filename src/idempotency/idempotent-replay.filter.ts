import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { problemContentType } from '../common/filters/all-exceptions.filter';
import { IdempotentReplay } from './idempotent-replay';

/** The header that marks a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Answers a kept answer again: its status, `Location`, `ETag` and body, with `Idempotent-Replayed: true`; a kept
 * error (written by the exception filter) with the `Content-Type` the request's `Accept` gets.
 */
@Catch(IdempotentReplay)
export class IdempotentReplayFilter implements ExceptionFilter<IdempotentReplay> {
  catch({ answer }: IdempotentReplay, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (answer.location !== undefined) response.setHeader('Location', answer.location);
    if (answer.etag !== undefined) response.setHeader('ETag', answer.etag);
    response.setHeader(IDEMPOTENT_REPLAYED_HEADER, 'true');
    if (answer.status >= 400) {
      response.vary('Accept');
      response.type(problemContentType(host.switchToHttp().getRequest<Request>().headers.accept));
    }
    response.status(answer.status).json(answer.body);
  }
}

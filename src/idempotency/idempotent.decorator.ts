import { applyDecorators, UseFilters, UseGuards } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import { ApiProblemResponse } from '../openapi/api-error-responses.decorator';
import { IDEMPOTENCY_KEY_MAX_LENGTH } from './idempotency-key';
import { IDEMPOTENCY_REFUSALS, IdempotencyGuard } from './idempotency.guard';
import { IdempotentReplayFilter } from './idempotent-replay.filter';

/** The route takes an `Idempotency-Key` header ({@link IdempotencyGuard}); documented in OpenAPI. */
export const Idempotent = (): MethodDecorator =>
  applyDecorators(
    UseGuards(IdempotencyGuard),
    UseFilters(IdempotentReplayFilter),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Makes a retry safe: the same key with the same method, path and body within 24 hours answers the first ' +
        "answer again, with `Idempotent-Replayed: true`. Keys belong to the token's `sub`; a Structured Field string " +
        `or the same characters unquoted, 1–${IDEMPOTENCY_KEY_MAX_LENGTH} characters from \`!\` to \`~\`. While the ` +
        'first request with the key runs, the same request is answered 409 `idempotency-key-in-flight`.',
      schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH + 2 },
    }),
    ApiProblemResponse(409, {
      description:
        "While the `Idempotency-Key`'s first request runs, the same request is refused. Nothing was changed.",
      example: IDEMPOTENCY_REFUSALS.inFlight,
      problemType: 'idempotency-key-in-flight',
    }),
    ApiProblemResponse(422, {
      description: 'The `Idempotency-Key` was used with another method, path or body. Nothing was changed.',
      example: IDEMPOTENCY_REFUSALS.reused,
      problemType: 'idempotency-key-reused',
    }),
  );

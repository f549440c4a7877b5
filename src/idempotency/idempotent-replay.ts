import type { KeptAnswer } from './idempotency-key.entity';

/** Thrown by `IdempotencyGuard` instead of running the handler: `IdempotentReplayFilter` answers `answer` again. */
export class IdempotentReplay extends Error {
  override readonly name = 'IdempotentReplay';

  constructor(readonly answer: KeptAnswer) {
    super('the kept answer of an Idempotency-Key');
  }
}

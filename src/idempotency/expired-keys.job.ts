import { cleanUpJob } from '../jobs/job-queue';
import { IdempotencyRepository } from './idempotency.repository';

/** The queue of the expired-key clean-up. */
export const EXPIRED_KEYS_QUEUE = 'idempotency-expired-keys';

/** Deletes expired `Idempotency-Key`s every ten minutes, through the job library (one process per occurrence). */
export const ExpiredKeysJob = cleanUpJob(
  { name: EXPIRED_KEYS_QUEUE, schedule: '*/10 * * * *', pollingIntervalSeconds: 30 },
  IdempotencyRepository,
  (keys) => keys.deleteExpired(),
);

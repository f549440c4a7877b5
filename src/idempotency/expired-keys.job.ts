import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { IdempotencyRepository } from './idempotency.repository';

/** The queue of the expired-key clean-up. */
export const EXPIRED_KEYS_QUEUE = 'idempotency-expired-keys';

/** Deletes expired `Idempotency-Key`s every ten minutes, through the job library (one process per occurrence). */
@Injectable()
export class ExpiredKeysJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobQueue,
    private readonly keys: IdempotencyRepository,
  ) {}

  onModuleInit(): void {
    this.jobs.define({
      queue: {
        name: EXPIRED_KEYS_QUEUE,
        policy: 'short',
        retryLimit: 2,
        expireInSeconds: 600,
        deleteAfterSeconds: 3600,
      },
      work: { pollingIntervalSeconds: 30 },
      schedule: '*/10 * * * *',
      handle: async () => {
        await this.keys.deleteExpired();
      },
    });
  }
}

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
    this.jobs.defineCleanUp({
      name: EXPIRED_KEYS_QUEUE,
      schedule: '*/10 * * * *',
      pollingIntervalSeconds: 30,
      handle: async () => {
        await this.keys.deleteExpired();
      },
    });
  }
}

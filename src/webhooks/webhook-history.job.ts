import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { WebhooksRepository } from './webhooks.repository';

/** The queue of the webhook history clean-up. */
export const WEBHOOK_HISTORY_QUEUE = 'webhooks-history';

/**
 * Deletes, every hour, finished deliveries past their retention and attempts no delivery log shows
 * ({@link WebhooksRepository.prune}), through the job library (one process per occurrence).
 */
@Injectable()
export class WebhookHistoryJob implements OnModuleInit {
  private readonly logger = new Logger(WebhookHistoryJob.name);

  constructor(
    private readonly jobs: JobQueue,
    private readonly webhooks: WebhooksRepository,
  ) {}

  onModuleInit(): void {
    this.jobs.defineCleanUp({
      name: WEBHOOK_HISTORY_QUEUE,
      schedule: '23 * * * *',
      pollingIntervalSeconds: 60,
      handle: async () => {
        const pruned = await this.webhooks.prune();
        const { deliveries, attempts } = pruned;
        if (deliveries + attempts > 0)
          this.logger.log(`pruned ${deliveries} finished deliveries and ${attempts} attempts`);
      },
    });
  }
}

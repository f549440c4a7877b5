import { Logger } from '@nestjs/common';
import { cleanUpJob } from '../jobs/job-queue';
import { WebhooksRepository } from './webhooks.repository';

/** The queue of the webhook history clean-up. */
export const WEBHOOK_HISTORY_QUEUE = 'webhooks-history';

const logger = new Logger('WebhookHistoryJob');

/**
 * Deletes, every hour, finished deliveries past their retention and attempts no delivery log shows
 * ({@link WebhooksRepository.prune}), through the job library (one process per occurrence).
 */
export const WebhookHistoryJob = cleanUpJob(
  { name: WEBHOOK_HISTORY_QUEUE, schedule: '23 * * * *', pollingIntervalSeconds: 60 },
  WebhooksRepository,
  async (webhooks) => {
    const { deliveries, attempts } = await webhooks.prune();
    if (deliveries + attempts > 0) logger.log(`pruned ${deliveries} finished deliveries and ${attempts} attempts`);
  },
);

import { Injectable } from '@nestjs/common';
import { BacklogMetrics } from '../metrics/backlog-metrics';

/** Names of the webhook metrics. */
export const WEBHOOK_METRICS = {
  attempts: 'webhook_delivery_attempts_total',
  depth: 'webhook_deliveries_pending',
  oldest: 'webhook_oldest_pending_delivery_seconds',
} as const;

/**
 * `webhook_delivery_attempts_total{outcome}` (`success`, `failure`) counted by this process, and the deliveries not
 * yet made with the age of the oldest, as this process's delivery job last read them (absent in a process that does
 * not run the jobs, so that a scrape never waits for the database); registered while the module lives.
 */
@Injectable()
export class WebhookMetrics extends BacklogMetrics {
  constructor() {
    super({
      outcomes: {
        name: WEBHOOK_METRICS.attempts,
        help: 'Webhook delivery attempts made by this process, by outcome (a 2xx answer within 10 s is a success).',
      },
      pending: {
        name: WEBHOOK_METRICS.depth,
        help: 'Webhook deliveries not yet made nor given up (the queue depth, all processes together), as last read.',
      },
      oldest: {
        name: WEBHOOK_METRICS.oldest,
        help: 'Age in seconds of the oldest webhook delivery not yet made nor given up (0 when none), as last read.',
      },
    });
  }

  /** Counts one attempt. */
  attempted(ok: boolean): void {
    this.outcomes?.inc({ outcome: ok ? 'success' : 'failure' });
  }
}

import { Injectable, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { OwnedMetrics } from '../metrics/owned-metrics';

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
export class WebhookMetrics extends OwnedMetrics implements OnModuleInit {
  private attempts?: Counter<'outcome'>;
  private depth?: Gauge;
  private oldest?: Gauge;

  /** Counts one attempt. */
  attempted(ok: boolean): void {
    this.attempts?.inc({ outcome: ok ? 'success' : 'failure' });
  }

  /** Records the backlog as just read: `depth` deliveries pending, the oldest `oldestSeconds` old. */
  backlog(depth: number, oldestSeconds: number): void {
    this.depth?.set(depth);
    this.oldest?.set(oldestSeconds);
  }

  onModuleInit(): void {
    const { attempts, depth, oldest } = WEBHOOK_METRICS;
    this.attempts = this.own(Counter, {
      name: attempts,
      help: 'Webhook delivery attempts made by this process, by outcome (a 2xx answer within 10 s is a success).',
      labelNames: ['outcome'],
    });
    this.depth = this.own(Gauge, {
      name: depth,
      help: 'Webhook deliveries not yet made nor given up (the queue depth, all processes together), as last read.',
    });
    this.oldest = this.own(Gauge, {
      name: oldest,
      help: 'Age in seconds of the oldest webhook delivery not yet made nor given up (0 when none), as last read.',
    });
  }

  protected override released(): void {
    this.attempts = this.depth = this.oldest = undefined;
  }
}

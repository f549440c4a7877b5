import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, register } from 'prom-client';

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
export class WebhookMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly metrics: (Counter<string> | Gauge<string>)[] = [];
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
    for (const name of Object.values(WEBHOOK_METRICS)) register.removeSingleMetric(name);
    this.attempts = new Counter({
      name: WEBHOOK_METRICS.attempts,
      help: 'Webhook delivery attempts made by this process, by outcome (a 2xx answer within 10 s is a success).',
      labelNames: ['outcome'],
    });
    this.depth = new Gauge({
      name: WEBHOOK_METRICS.depth,
      help: 'Webhook deliveries not yet made nor given up (the queue depth, all processes together), as last read.',
    });
    this.oldest = new Gauge({
      name: WEBHOOK_METRICS.oldest,
      help: 'Age in seconds of the oldest webhook delivery not yet made nor given up (0 when none), as last read.',
    });
    this.metrics.push(this.attempts, this.depth, this.oldest);
  }

  onModuleDestroy(): void {
    // Only our own: another application of this process may have registered its metrics since.
    for (const metric of this.metrics.splice(0)) {
      const name = (metric as unknown as { name: string }).name;
      if (register.getSingleMetric(name) === metric) register.removeSingleMetric(name);
    }
    this.attempts = this.depth = this.oldest = undefined;
  }
}

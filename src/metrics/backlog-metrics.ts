import type { OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { OwnedMetrics } from './owned-metrics';

/** A metric's name and help text. */
interface MetricText {
  readonly name: string;
  readonly help: string;
}

/** What a {@link BacklogMetrics} registers: a counter by `outcome`, the backlog's size and its oldest item's age. */
export interface BacklogMetricsDefinition {
  readonly outcomes: MetricText;
  readonly pending: MetricText;
  readonly oldest: MetricText;
}

/**
 * Base of the metrics of work taken from a backlog (webhook deliveries, cache purges): `outcomes{outcome}` counted by
 * this process, and the backlog's size and the age in seconds of its oldest item as this process last read them;
 * registered while the module lives.
 */
export abstract class BacklogMetrics extends OwnedMetrics implements OnModuleInit {
  /** The counter by `outcome`, once registered. */
  protected outcomes?: Counter<'outcome'>;
  private pending?: Gauge;
  private oldest?: Gauge;

  protected constructor(private readonly definition: BacklogMetricsDefinition) {
    super();
  }

  /** Records the backlog as just read: `pending` items, the oldest `oldestSeconds` old (0 when none). */
  backlog(pending: number, oldestSeconds: number): void {
    this.pending?.set(pending);
    this.oldest?.set(oldestSeconds);
  }

  onModuleInit(): void {
    const { outcomes, pending, oldest } = this.definition;
    this.outcomes = this.own(Counter, { ...outcomes, labelNames: ['outcome'] });
    this.pending = this.own(Gauge, { ...pending });
    this.oldest = this.own(Gauge, { ...oldest });
  }

  protected override released(): void {
    this.outcomes = this.pending = this.oldest = undefined;
  }
}

import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge, register } from 'prom-client';

/** Names of the shared-cache metrics. */
export const CACHE_METRICS = {
  purges: 'cache_purges_total',
  pending: 'cache_purges_pending',
  oldest: 'cache_oldest_pending_purge_seconds',
} as const;

/**
 * `cache_purges_total{outcome}` (`sent`, `failed`: purge requests of this process), and the events not yet purged with
 * the age of the oldest, as this process's purge job last read them; registered while the module lives.
 */
@Injectable()
export class CacheMetrics implements OnModuleInit, OnModuleDestroy {
  private readonly metrics: (Counter<string> | Gauge<string>)[] = [];
  private purges?: Counter<'outcome'>;
  private pending?: Gauge;
  private oldest?: Gauge;

  /** Counts `sent` requests answered 2xx and, when `failed`, one that was not. */
  purged(sent: number, failed: boolean): void {
    if (sent > 0) this.purges?.inc({ outcome: 'sent' }, sent);
    if (failed) this.purges?.inc({ outcome: 'failed' });
  }

  /** Records the backlog as just read. */
  backlog(pending: number, oldestSeconds: number): void {
    this.pending?.set(pending);
    this.oldest?.set(oldestSeconds);
  }

  onModuleInit(): void {
    for (const name of Object.values(CACHE_METRICS)) register.removeSingleMetric(name);
    this.purges = new Counter({
      name: CACHE_METRICS.purges,
      help: 'Purge requests to the caches of CACHE_PURGE_URLS made by this process, by outcome (2xx: sent).',
      labelNames: ['outcome'],
    });
    this.pending = new Gauge({
      name: CACHE_METRICS.pending,
      help: 'Events whose keys are not yet purged, summed over the caches of CACHE_PURGE_URLS, as last read.',
    });
    this.oldest = new Gauge({
      name: CACHE_METRICS.oldest,
      help: 'Age in seconds of the oldest event whose keys are not yet purged from every cache (0 when none), as last read.',
    });
    this.metrics.push(this.purges, this.pending, this.oldest);
  }

  onModuleDestroy(): void {
    // Only our own: another application of this process may have registered its metrics since.
    for (const metric of this.metrics.splice(0)) {
      const name = (metric as unknown as { name: string }).name;
      if (register.getSingleMetric(name) === metric) register.removeSingleMetric(name);
    }
    this.purges = this.pending = this.oldest = undefined;
  }
}

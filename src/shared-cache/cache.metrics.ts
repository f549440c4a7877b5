import { Injectable, OnModuleInit } from '@nestjs/common';
import { Counter, Gauge } from 'prom-client';
import { OwnedMetrics } from '../metrics/owned-metrics';

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
export class CacheMetrics extends OwnedMetrics implements OnModuleInit {
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
    const { purges, pending, oldest } = CACHE_METRICS;
    this.purges = this.own(Counter, {
      name: purges,
      help: 'Purge requests to the caches of CACHE_PURGE_URLS made by this process, by outcome (2xx: sent).',
      labelNames: ['outcome'],
    });
    this.pending = this.own(Gauge, {
      name: pending,
      help: 'Events whose keys are not yet purged, summed over the caches of CACHE_PURGE_URLS, as last read.',
    });
    this.oldest = this.own(Gauge, {
      name: oldest,
      help: 'Age in seconds of the oldest event whose keys are not yet purged from every cache (0 when none), as last read.',
    });
  }

  protected override released(): void {
    this.purges = this.pending = this.oldest = undefined;
  }
}

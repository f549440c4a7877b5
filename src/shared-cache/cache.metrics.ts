import { Injectable } from '@nestjs/common';
import { BacklogMetrics } from '../metrics/backlog-metrics';

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
export class CacheMetrics extends BacklogMetrics {
  constructor() {
    super({
      outcomes: {
        name: CACHE_METRICS.purges,
        help: 'Purge requests to the caches of CACHE_PURGE_URLS made by this process, by outcome (2xx: sent).',
      },
      pending: {
        name: CACHE_METRICS.pending,
        help: 'Events whose keys are not yet purged, summed over the caches of CACHE_PURGE_URLS, as last read.',
      },
      oldest: {
        name: CACHE_METRICS.oldest,
        help: 'Age in seconds of the oldest event whose keys are not yet purged from every cache (0 when none), as last read.',
      },
    });
  }

  /** Counts `sent` requests answered 2xx and, when `failed`, one that was not. */
  purged(sent: number, failed: boolean): void {
    if (sent > 0) this.outcomes?.inc({ outcome: 'sent' }, sent);
    if (failed) this.outcomes?.inc({ outcome: 'failed' });
  }
}

import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { cacheConfig } from '../config/cache.config';
import { EventRegistry } from '../events/event-registry';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsRepository } from '../events/events.repository';
import { CacheMetrics } from './cache.metrics';
import { CachePurger } from './cache-purger';
import { CachePurgesRepository, PurgeClaim } from './cache-purges.repository';

/** Events whose keys one purge request set covers. */
export const PURGE_BATCH = 500;

/** Seconds before a refused purge is tried again: 1, 2, 4, 8, then this at most. */
export const MAX_RETRY_SECONDS = 10;

/** Seconds a run leases a cache for, per batch: its requests and statements (its process killed, another purges after). */
export const PURGE_LEASE_SECONDS = 30;

/** How often the purge job reads the backlog for the metrics, in ms. */
const BACKLOG_READ_INTERVAL_MS = 5_000;

/** Seconds to wait after `failures` refusals in a row. */
export const retrySeconds = (failures: number): number => Math.min(2 ** (failures - 1), MAX_RETRY_SECONDS);

/**
 * Purges of shared caches, a consumer of the change feed (docs/operations.md, "Behind a cache or CDN"): in each relay,
 * for each cache with events not yet purged that it leases, it sends their keys (the registry's, per resource) and
 * moves the cache's position in `cache_purges` only once the cache answered 2xx, so a purge cut short or refused is
 * made again.
 */
@Injectable()
export class CachePurgeJob implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('SharedCache');
  private readonly urls: readonly string[];
  private backlogReadAt = 0;

  constructor(
    @Inject(cacheConfig.KEY) config: ConfigType<typeof cacheConfig>,
    private readonly relay: EventRelayJob,
    private readonly events: EventsRepository,
    private readonly registry: EventRegistry,
    private readonly purges: CachePurgesRepository,
    private readonly purger: CachePurger,
    private readonly metrics: CacheMetrics,
  ) {
    this.urls = config.purgeUrls;
  }

  onModuleInit(): void {
    if (this.urls.length === 0) return;
    this.relay.afterRelay(() => this.purgeDue());
    this.relay.afterRelay(() => this.readBacklog());
  }

  /**
   * Records the caches new to `cache_purges` before the first request is served: each is purged from the next event on,
   * whichever process writes it.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.urls.length > 0) await this.purges.start(this.urls);
  }

  /** Purges, side by side, each cache with events to purge that no other run purges now. */
  private async purgeDue(): Promise<void> {
    const claims = await this.purges.claim(this.urls, PURGE_LEASE_SECONDS);
    await Promise.all(claims.map((claim) => this.purge(claim)));
  }

  private async readBacklog(): Promise<void> {
    if (Date.now() - this.backlogReadAt < BACKLOG_READ_INTERVAL_MS) return;
    this.backlogReadAt = Date.now();
    const { pending, oldestSeconds } = await this.purges.backlog(this.urls);
    this.metrics.backlog(pending, oldestSeconds);
  }

  /** Purges the cache of `claim` batch by batch up to the newest event, or until it refuses; then ends the lease. */
  private async purge({ url, purgedThrough, failures }: PurgeClaim): Promise<void> {
    for (let from = purgedThrough; ; failures = 0) {
      const events = await this.events.after(from, PURGE_BATCH);
      if (events.length === 0) {
        await this.purges.advance(url, from, from);
        return;
      }
      const keys = [...new Set(events.flatMap((event) => this.registry.surrogateKeys(event)))];
      const { sent, error } = keys.length === 0 ? { sent: 0, error: null } : await this.purger.purge(url, keys);
      this.metrics.purged(sent, error !== null);
      if (error !== null) {
        const wait = retrySeconds(failures + 1);
        if (failures === 0) this.logger.warn(`purge of ${url} failed (${error}); retrying every ${wait}+ s`);
        await this.purges.refused(url, from, wait);
        return;
      }
      if (failures > 0) this.logger.log(`purges of ${url} are made again`);
      const last = events[events.length - 1].id;
      const more = events.length === PURGE_BATCH;
      if (!(await this.purges.advance(url, from, last, more ? PURGE_LEASE_SECONDS : null)) || !more) return;
      from = last;
    }
  }
}

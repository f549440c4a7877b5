import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import type { Job } from 'pg-boss';
import { cacheConfig } from '../config/cache.config';
import { EventRegistry } from '../events/event-registry';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsRepository } from '../events/events.repository';
import { JobQueue } from '../jobs/job-queue';
import { CacheMetrics } from './cache.metrics';
import { CachePurger } from './cache-purger';
import { CachePurgesRepository } from './cache-purges.repository';

/** The queue of purges: one job at a time per cache, across every process (policy `stately`, keyed by its URL). */
export const CACHE_PURGE_QUEUE = 'cache-purge';

/** Events whose keys one purge request set covers. */
export const PURGE_BATCH = 500;

/** Seconds before a refused purge is tried again: 1, 2, 4, 8, then this at most. */
export const MAX_RETRY_SECONDS = 10;

/** Seconds after which a purge job expires and may run again (its process was killed): its requests plus statements. */
const PURGE_EXPIRY_SECONDS = 30;

/** How often the purge job reads the backlog for the metrics, in ms. */
const BACKLOG_READ_INTERVAL_MS = 5_000;

/** A job of {@link CACHE_PURGE_QUEUE}: purge cache `url` up to the newest event. */
interface PurgeJob {
  readonly url: string;
}

/** Seconds to wait after `failures` refusals in a row. */
export const retrySeconds = (failures: number): number => Math.min(2 ** (failures - 1), MAX_RETRY_SECONDS);

/**
 * Purges of shared caches, a consumer of the change feed (docs/operations.md, "Behind a cache or CDN"): after each
 * relay, a job per cache with events not yet purged; it sends their keys (the registry's, per resource) and moves the
 * cache's position in `cache_purges` only once the cache answered 2xx, so a purge cut short or refused is made again.
 */
@Injectable()
export class CachePurgeJob implements OnModuleInit, OnApplicationBootstrap {
  private readonly logger = new Logger('SharedCache');
  private readonly urls: readonly string[];
  private backlogReadAt = 0;

  constructor(
    @Inject(cacheConfig.KEY) config: ConfigType<typeof cacheConfig>,
    private readonly jobs: JobQueue,
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
    this.jobs.define<PurgeJob>({
      queue: {
        name: CACHE_PURGE_QUEUE,
        policy: 'stately',
        retryLimit: 0,
        expireInSeconds: PURGE_EXPIRY_SECONDS,
        deleteAfterSeconds: 3600,
      },
      work: { pollingIntervalSeconds: 2, localConcurrency: this.urls.length },
      handle: (jobs: Job<PurgeJob>[]) => this.purgeAll(jobs),
    });
    this.relay.afterRelay(() => this.queueDue());
    this.relay.afterRelay(() => this.readBacklog());
  }

  /**
   * Records the caches new to `cache_purges` before the first request is served: each is purged from the next event on,
   * whichever process writes it.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.urls.length > 0) await this.purges.start(this.urls);
  }

  /** Sends a job for each cache with events to purge (one waits per cache at most), and wakes as many workers. */
  private async queueDue(): Promise<void> {
    const due = await this.purges.due(this.urls);
    for (const url of due) await this.jobs.send(CACHE_PURGE_QUEUE, { url } satisfies PurgeJob, { singletonKey: url });
    if (due.length > 0) this.jobs.wake(CACHE_PURGE_QUEUE, due.length);
  }

  private async readBacklog(): Promise<void> {
    if (Date.now() - this.backlogReadAt < BACKLOG_READ_INTERVAL_MS) return;
    this.backlogReadAt = Date.now();
    const { pending, oldestSeconds } = await this.purges.backlog(this.urls);
    this.metrics.backlog(pending, oldestSeconds);
  }

  private async purgeAll(jobs: Job<PurgeJob>[]): Promise<void> {
    for (const job of jobs) await this.purge(job.data.url);
  }

  /** Purges cache `url` batch by batch up to the newest event, or until it refuses. */
  private async purge(url: string): Promise<void> {
    for (;;) {
      const position = await this.purges.position(url);
      if (position === null || !position.due) return;
      const events = await this.events.after(position.purgedThrough, PURGE_BATCH);
      if (events.length === 0) return;
      const keys = [...new Set(events.flatMap((event) => this.registry.surrogateKeys(event)))];
      const { sent, error } = keys.length === 0 ? { sent: 0, error: null } : await this.purger.purge(url, keys);
      this.metrics.purged(sent, error !== null);
      if (error !== null) {
        const wait = retrySeconds(position.failures + 1);
        if (position.failures === 0) this.logger.warn(`purge of ${url} failed (${error}); retrying every ${wait}+ s`);
        await this.purges.refused(url, position.purgedThrough, wait);
        return;
      }
      if (position.failures > 0) this.logger.log(`purges of ${url} are made again`);
      const last = events[events.length - 1].id;
      if (!(await this.purges.advance(url, position.purgedThrough, last))) return;
    }
  }
}

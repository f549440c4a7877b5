import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnModuleInit,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { describeFailure } from '../common/describe-failure';
import { jobsConfig } from '../config/jobs.config';
import { JobQueue } from '../jobs/job-queue';
import { EventRegistry } from './event-registry';
import { EventsRepository } from './events.repository';

/** The queue of the events job. */
export const EVENT_RELAY_QUEUE = 'events-relay';

/** Seconds between two runs of the events job: an event that a clock makes due comes within about this. */
export const EVENT_RELAY_INTERVAL_SECONDS = 1;

/** Least time between the starts of two relays that writes of this process ask for ({@link EventRelayJob.soon}), in ms. */
export const RELAY_SOON_GAP_MS = 100;

/** How late after the next run's `startAfter` this process wakes its worker, in ms, rather than at its next poll. */
const RELAY_WAKE_MARGIN_MS = 50;

/**
 * The service's one clock (docs/architecture.md, "Jobs"): a job that sends its own next run, each second, runs the
 * registered resources' `beforeRelay` (scheduled blogs going live), numbers committed events, then runs the relay's
 * subscribers (webhook deliveries, cache purges). A write of this process asks for the same relay at once
 * ({@link soon}). Any number of runs, in any processes, may overlap: each step is safe to repeat.
 */
@Injectable()
export class EventRelayJob implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Events');
  private readonly subscribers: (() => Promise<void>)[] = [];
  private running = false;
  /** The relay that {@link soon} started and that has not ended, if any. */
  private inFlight?: Promise<void>;
  private lastStart = 0;
  private again = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly jobs: JobQueue,
    private readonly events: EventsRepository,
    private readonly registry: EventRegistry,
    @Inject(jobsConfig.KEY) private readonly config: ConfigType<typeof jobsConfig>,
  ) {}

  /** Runs `subscriber` after each relay of the events job, in this process, beside the other subscribers. */
  afterRelay(subscriber: () => Promise<void>): void {
    this.subscribers.push(subscriber);
  }

  onModuleInit(): void {
    this.jobs.define({
      // `short`: at most one run waits; the runs every process sends at start-up and each minute (should the chain
      // ever break) fold into it.
      queue: { name: EVENT_RELAY_QUEUE, policy: 'short', retryLimit: 0, expireInSeconds: 30, deleteAfterSeconds: 60 },
      work: { pollingIntervalSeconds: 0.5 },
      schedule: '* * * * *',
      sendAtStart: {},
      handle: () => this.run(),
    });
  }

  onApplicationBootstrap(): void {
    this.running = this.config.enabled;
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    clearTimeout(this.timer);
    await this.inFlight;
  }

  /**
   * Relays in this process as soon as it may, after a write's commit: at once, or {@link RELAY_SOON_GAP_MS} after the
   * previous such relay began (calls meanwhile fold into one). Does nothing where the workers do not run (`JOBS_ENABLED`).
   */
  soon(): void {
    if (!this.running || this.timer !== undefined) return;
    if (this.inFlight !== undefined) {
      this.again = true;
      return;
    }
    const wait = this.lastStart + RELAY_SOON_GAP_MS - Date.now();
    if (wait <= 0) this.start();
    else this.timer = setTimeout(() => this.start(), wait);
  }

  private start(): void {
    this.timer = undefined;
    if (!this.running) return;
    this.lastStart = Date.now();
    this.again = false;
    this.inFlight = this.relay()
      .catch((error: unknown) => this.logger.warn(`relay after a write failed: ${describeFailure(error)}`))
      .finally(() => {
        this.inFlight = undefined;
        if (this.again) this.soon();
      });
  }

  private async run(): Promise<void> {
    // The next run first, so that a failure of this one does not end the chain; woken when due, not up to a poll later.
    await this.jobs.send(EVENT_RELAY_QUEUE, {}, { startAfter: EVENT_RELAY_INTERVAL_SECONDS });
    setTimeout(
      () => this.jobs.wake(EVENT_RELAY_QUEUE),
      EVENT_RELAY_INTERVAL_SECONDS * 1000 + RELAY_WAKE_MARGIN_MS,
    ).unref();
    await this.relay();
  }

  private async relay(): Promise<void> {
    await this.registry.beforeRelay();
    await this.events.relay();
    // Side by side: a cache's purge does not wait for the webhooks' queueing.
    await Promise.all(this.subscribers.map((subscriber) => subscriber()));
  }
}

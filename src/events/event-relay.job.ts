import { Injectable, OnModuleInit } from '@nestjs/common';
import { JobQueue } from '../jobs/job-queue';
import { EventRegistry } from './event-registry';
import { EventsRepository } from './events.repository';

/** The queue of the events job. */
export const EVENT_RELAY_QUEUE = 'events-relay';

/** Seconds between two runs of the events job: an event that a clock makes due comes within about this. */
export const EVENT_RELAY_INTERVAL_SECONDS = 1;

/** How late after the next run's `startAfter` this process wakes its worker, in ms, rather than at its next poll. */
const RELAY_WAKE_MARGIN_MS = 50;

/**
 * The service's one clock (docs/architecture.md, "Jobs"): a job that sends its own next run, each second, runs the
 * registered resources' `beforeRelay` (scheduled blogs going live), numbers committed events, then runs the relay's
 * subscribers (webhook deliveries). Any number of processes may run it at once: each step is safe to repeat.
 */
@Injectable()
export class EventRelayJob implements OnModuleInit {
  private readonly subscribers: (() => Promise<void>)[] = [];

  constructor(
    private readonly jobs: JobQueue,
    private readonly events: EventsRepository,
    private readonly registry: EventRegistry,
  ) {}

  /** Runs `subscriber` after each relay of the events job, in this process. */
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

  private async run(): Promise<void> {
    // The next run first, so that a failure of this one does not end the chain; woken when due, not up to a poll later.
    await this.jobs.send(EVENT_RELAY_QUEUE, {}, { startAfter: EVENT_RELAY_INTERVAL_SECONDS });
    setTimeout(
      () => this.jobs.wake(EVENT_RELAY_QUEUE),
      EVENT_RELAY_INTERVAL_SECONDS * 1000 + RELAY_WAKE_MARGIN_MS,
    ).unref();
    await this.registry.beforeRelay();
    await this.events.relay();
    for (const subscriber of this.subscribers) await subscriber();
  }
}

import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { Job } from 'pg-boss';
import { Webhook as WebhookSigner } from 'standardwebhooks';
import { StatementRunner } from '../database/statement-runner';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsService } from '../events/events.service';
import { JobQueue } from '../jobs/job-queue';
import { RETRY_PERIOD_SECONDS, retryDelaySeconds } from './retry-schedule';
import { WebhookMetrics } from './webhook.metrics';
import { WebhookSender } from './webhook-sender';
import { WebhooksRepository } from './webhooks.repository';

/** The queue of webhook attempts: one job per attempt, grouped by webhook. */
export const WEBHOOK_DELIVERY_QUEUE = 'webhook-delivery';

/** Attempts of one webhook in flight at once, per process. */
export const DELIVERIES_PER_WEBHOOK = 10;

/** Workers each process starts with; {@link keepSpareWorkers} adds more while attempts hold them. */
export const DELIVERY_WORKERS = 25;

/**
 * Idle workers each process keeps: when an attempt starts with fewer idle, {@link DELIVERIES_PER_WEBHOOK} more start. A
 * receiver that hangs holds at most {@link DELIVERIES_PER_WEBHOOK} workers of a process, so any number of them leave
 * workers for the others.
 */
export const SPARE_WORKERS = DELIVERIES_PER_WEBHOOK;

/**
 * Delivery workers of one process at most: {@link SPARE_WORKERS} stop being added there, so that a storm of hanging
 * receivers cannot crowd the database pool the requests share (docs/architecture.md, "Webhooks").
 */
export const MAX_DELIVERY_WORKERS = 500;

/** Seconds between two fetches of an idle added worker: they are woken like the others, and stop when idle. */
export const ADDED_WORKER_POLLING_SECONDS = 60;

/** How long added workers stay after their last attempt, in ms, before they stop (while {@link SPARE_WORKERS} remain). */
export const ADDED_WORKERS_IDLE_MS = 60_000;

/**
 * Seconds after which an attempt's job expires and is made again (its process was killed, or it overran): the 10 s
 * attempt timeout plus its statements.
 */
export const ATTEMPT_EXPIRY_SECONDS = 20;

/**
 * Seconds between two fetches of an idle delivery worker. Attempts due in this process wake a worker themselves (new
 * deliveries, retries, the next job after each attempt), so polling only finds the jobs of a process that stopped.
 */
export const DELIVERY_POLLING_SECONDS = 10;

/** How late after its job's `startAfter` a retry wakes a worker, in ms: the database's clock may run behind. */
const RETRY_WAKE_MARGIN_MS = 500;

/** How often the delivery job reads the backlog for the metrics, in ms. */
export const BACKLOG_READ_INTERVAL_MS = 5_000;

/** A job of {@link WEBHOOK_DELIVERY_QUEUE}: attempt number `attempt` (1 for the first) of one delivery. */
interface AttemptJob {
  readonly deliveryId: string;
  readonly attempt: number;
}

/**
 * Webhook deliveries through the job library (docs/architecture.md, "Webhooks"): after each relay, the first attempt
 * of every new delivery is queued; an attempt POSTs the event signed as Standard Webhooks asks, then records its
 * outcome and queues the next attempt by {@link retryDelaySeconds} in one transaction. An attempt cut short (its
 * process killed) runs again when its job expires, on any process; one whose outcome is recorded never runs twice.
 */
@Injectable()
export class WebhookDeliveryJob implements OnModuleInit {
  private readonly logger = new Logger('Webhooks');
  private backlogReadAt = 0;
  /** Whether {@link keepSpareWorkers} is starting workers. */
  private adding = false;
  /** The ids of the worker sets {@link keepSpareWorkers} started, with when one of each was last seen busy (ms). */
  private readonly added = new Map<string, number>();

  constructor(
    private readonly jobs: JobQueue,
    private readonly relay: EventRelayJob,
    private readonly events: EventsService,
    private readonly webhooks: WebhooksRepository,
    private readonly sql: StatementRunner,
    private readonly sender: WebhookSender,
    private readonly metrics: WebhookMetrics,
  ) {}

  onModuleInit(): void {
    this.jobs.define<AttemptJob>({
      // Job retries are for failures of this process or the database, not of the receiver: those are new jobs.
      queue: {
        name: WEBHOOK_DELIVERY_QUEUE,
        retryLimit: 100,
        retryDelay: 5,
        expireInSeconds: ATTEMPT_EXPIRY_SECONDS,
        deleteAfterSeconds: 3600,
      },
      work: {
        pollingIntervalSeconds: DELIVERY_POLLING_SECONDS,
        localConcurrency: DELIVERY_WORKERS,
        localGroupConcurrency: DELIVERIES_PER_WEBHOOK,
      },
      handle: (jobs) => this.attemptAll(jobs),
    });
    this.relay.afterRelay(() => this.queueNew());
    this.relay.afterRelay(() => this.readBacklog());
    this.relay.afterRelay(() => Promise.resolve(this.stopIdleAddedWorkers()));
  }

  /**
   * Starts {@link DELIVERIES_PER_WEBHOOK} more workers (pg-boss `work()`, sharing the queue's per-webhook limit) while
   * fewer than {@link SPARE_WORKERS} of this process's are idle, up to {@link MAX_DELIVERY_WORKERS}; they fetch at once.
   */
  private async keepSpareWorkers(): Promise<void> {
    if (this.adding) return;
    this.adding = true;
    try {
      for (;;) {
        const workers = this.jobs.workers(WEBHOOK_DELIVERY_QUEUE);
        const idle = workers.filter((worker) => !worker.busy).length;
        if (idle >= SPARE_WORKERS || workers.length + DELIVERIES_PER_WEBHOOK > MAX_DELIVERY_WORKERS) return;
        const id = await this.jobs.addWorkers(WEBHOOK_DELIVERY_QUEUE, {
          pollingIntervalSeconds: ADDED_WORKER_POLLING_SECONDS,
          localConcurrency: DELIVERIES_PER_WEBHOOK,
          localGroupConcurrency: DELIVERIES_PER_WEBHOOK,
        });
        if (id === undefined) return;
        this.added.set(id, Date.now());
      }
    } catch (error) {
      this.logger.error(`could not start more delivery workers: ${(error as Error).message}`);
    } finally {
      this.adding = false;
    }
  }

  /** Stops the added workers idle for {@link ADDED_WORKERS_IDLE_MS} whose stopping leaves {@link SPARE_WORKERS} idle. */
  private stopIdleAddedWorkers(): void {
    if (this.added.size === 0) return;
    const now = Date.now();
    const workers = this.jobs.workers(WEBHOOK_DELIVERY_QUEUE);
    let idle = workers.filter((worker) => !worker.busy).length;
    for (const [id, busyAt] of this.added) {
      const set = workers.filter((worker) => worker.workId === id);
      if (set.some((worker) => worker.busy)) this.added.set(id, now);
      else if (now - busyAt >= ADDED_WORKERS_IDLE_MS && idle - set.length >= SPARE_WORKERS) {
        this.added.delete(id);
        idle -= set.length;
        this.jobs
          .stopWorkers(WEBHOOK_DELIVERY_QUEUE, id)
          .catch((error: Error) => this.logger.error(`could not stop delivery workers: ${error.message}`));
      }
    }
  }

  /** Reads the backlog for the metrics, at most every {@link BACKLOG_READ_INTERVAL_MS}. */
  private async readBacklog(): Promise<void> {
    if (Date.now() - this.backlogReadAt < BACKLOG_READ_INTERVAL_MS) return;
    this.backlogReadAt = Date.now();
    const { depth, oldest } = await this.webhooks.backlog();
    this.metrics.backlog(depth, oldest);
  }

  /**
   * Queues the first attempt of every delivery a relay wrote (this job's or a feed read's), in the transaction that
   * marks them queued, and wakes as many workers.
   */
  private async queueNew(): Promise<void> {
    for (;;) {
      const queued = await this.sql.transaction(async (transaction) => {
        const deliveries = await this.webhooks.queueNew(transaction);
        const jobs = deliveries.map(({ id, webhook_id }) => ({
          data: { deliveryId: id, attempt: 1 } satisfies AttemptJob,
          group: { id: webhook_id },
        }));
        await this.jobs.insert(WEBHOOK_DELIVERY_QUEUE, jobs, transaction.connection);
        return deliveries.length;
      });
      if (queued === 0) return;
      this.jobs.wake(WEBHOOK_DELIVERY_QUEUE, queued);
    }
  }

  /** Attempts each job, then wakes another worker: while jobs are due, each attempt ends with a fetch. */
  private async attemptAll(jobs: Job<AttemptJob>[]): Promise<void> {
    void this.keepSpareWorkers();
    try {
      for (const job of jobs) await this.attempt(job.data);
    } finally {
      this.jobs.wake(WEBHOOK_DELIVERY_QUEUE);
    }
  }

  private async attempt({ deliveryId, attempt }: AttemptJob): Promise<void> {
    const target = await this.webhooks.target(deliveryId);
    if (target === null || target.state !== 'pending' || target.attempts !== attempt - 1 || target.disabledAt) return;
    const event = await this.events.event(target.eventId);
    if (event === null) return;
    const body = JSON.stringify(event);
    const attemptedAt = new Date();
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
      'webhook-signature': new WebhookSigner(target.secret).sign(event.id, attemptedAt, body),
    };
    const result = await this.sender.post(target.url, headers, body);
    const expired = attemptedAt.getTime() - target.createdAt.getTime() >= RETRY_PERIOD_SECONDS * 1000;
    const state = result.ok ? 'delivered' : expired ? 'failed' : 'pending';
    const { statusCode, durationMs, error } = result;
    const retryAfter = await this.sql.transaction(async (transaction) => {
      const settled = await this.webhooks.settle(transaction, deliveryId, attempt, state, {
        attemptedAt,
        statusCode,
        durationMs,
        error,
      });
      if (!settled || state !== 'pending') return undefined;
      const next: AttemptJob = { deliveryId, attempt: attempt + 1 };
      const options = { startAfter: retryDelaySeconds(attempt), group: { id: target.webhookId } };
      await this.jobs.send(WEBHOOK_DELIVERY_QUEUE, next, options, transaction.connection);
      return options.startAfter;
    });
    if (retryAfter !== undefined) {
      setTimeout(() => this.jobs.wake(WEBHOOK_DELIVERY_QUEUE), retryAfter * 1000 + RETRY_WAKE_MARGIN_MS).unref();
    }
    this.metrics.attempted(result.ok);
  }
}

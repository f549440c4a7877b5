import {
  BeforeApplicationShutdown,
  type FactoryProvider,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  type Type,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Job, JobInsert, PgBoss, Queue, SendOptions, WorkOptions } from 'pg-boss';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { databaseConfig } from '../config/database.config';
import { jobsConfig } from '../config/jobs.config';
import type { Connection } from '../database/pooled-connection';
import { primaryJobDatabase, transactionJobDatabase } from './job-database';

/** The schema that holds the job library's tables (created by the migration `AddJobSchema`). */
export const JOB_SCHEMA = 'pgboss';

/** A queue and its worker, as a feature module defines them in `onModuleInit` (docs/architecture.md, "Jobs"). */
export interface JobDefinition<T extends object> {
  /** The queue: name (letters, digits, `_ . - /`), policy, retries, expiry (pg-boss `Queue`). */
  readonly queue: Queue;
  /** How this process fetches: polling interval, batch size, concurrency (pg-boss `WorkOptions`). */
  readonly work: WorkOptions;
  /** Does the work of a fetched batch; throwing fails (and retries) every job of it. */
  readonly handle: (jobs: Job<T>[]) => Promise<void>;
  /** A cron expression (UTC): one job is sent on each occurrence, by whichever process's clock comes first. */
  readonly schedule?: string;
  /** Sent at start-up with these data, e.g. to start a job that sends its own next one. */
  readonly sendAtStart?: T;
}

/** A scheduled clean-up: a job sent on each occurrence of `schedule`, whose handler takes no data. */
export interface CleanUpDefinition {
  /** The queue's name. */
  readonly name: string;
  /** A cron expression (UTC). */
  readonly schedule: string;
  /** How often this process looks for a run due. */
  readonly pollingIntervalSeconds: number;
  /** Does one run's work; throwing fails it, and it is retried. */
  readonly handle: () => Promise<unknown>;
}

/** The queue options of every clean-up: at most one run queued, retried twice, each attempt up to ten minutes. */
const CLEAN_UP_QUEUE: Omit<Queue, 'name'> = {
  policy: 'short',
  retryLimit: 2,
  expireInSeconds: 600,
  deleteAfterSeconds: 3600,
};

/** Seconds between two supervise passes of the job library, each of which expires the jobs past `expireInSeconds`. */
export const SUPERVISE_SECONDS = 10;

/** One worker of this process, as {@link JobQueue.workers} lists them. */
export interface QueueWorker {
  /** The worker's id. */
  readonly id: string;
  /** The id of the {@link JobQueue.addWorkers} (or defining) call that started it. */
  readonly workId: string;
  /** Whether it holds jobs now. */
  readonly busy: boolean;
}

/** Rethrows `error` unless it is the unique violation (SQLSTATE 23505) of a queue another process just created. */
function unlessCreatedMeanwhile(error: unknown): void {
  if ((error as { code?: unknown }).code !== '23505') throw error;
}

/**
 * The job library (pg-boss, its tables in the service's own database): feature modules {@link define} their queues;
 * with `JOBS_ENABLED` this process works them from start-up to shutdown, else it only defines them.
 */
@Injectable()
export class JobQueue implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobs');
  private readonly definitions: JobDefinition<object>[] = [];
  private boss?: PgBoss;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(jobsConfig.KEY) private readonly config: ConfigType<typeof jobsConfig>,
    @Inject(databaseConfig.KEY) private readonly database: ConfigType<typeof databaseConfig>,
  ) {}

  /** Adds a queue and its worker; call before the application bootstraps. */
  define<T extends object>(definition: JobDefinition<T>): void {
    this.definitions.push(definition as unknown as JobDefinition<object>);
  }

  /** {@link define}s a scheduled clean-up, with the queue options every clean-up shares. */
  defineCleanUp({ name, schedule, pollingIntervalSeconds, handle }: CleanUpDefinition): void {
    this.define({
      queue: { name, ...CLEAN_UP_QUEUE },
      work: { pollingIntervalSeconds },
      schedule,
      handle: async () => {
        await handle();
      },
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.enabled) return;
    // Loaded only here, so that a process without JOBS_ENABLED never loads the library (an ES module: Node's require(esm)).
    const { PgBoss, fromPglite } = await import('pg-boss');
    const embedded = this.database.url === undefined;
    const db = await primaryJobDatabase(this.dataSource.driver as PostgresDriver, embedded, fromPglite);
    const boss = new PgBoss({
      db,
      schema: JOB_SCHEMA,
      backend: embedded ? 'pglite' : 'postgres',
      // Expired jobs (a process killed mid-job) go back to their queue within this many seconds of expiring: expiry runs
      // in the monitor part of a supervise pass, so monitoring is due at every pass (pg-boss's default is every 60 s).
      superviseIntervalSeconds: SUPERVISE_SECONDS,
      monitorIntervalSeconds: SUPERVISE_SECONDS / 2,
      registerInstance: false,
      openTelemetry: { enabled: false },
    });
    boss.on('error', (error: Error) => this.logger.error(`job library: ${error.message}`));
    boss.on('warning', (warning: { message: string }) => this.logger.warn(`job library: ${warning.message}`));
    await boss.start();
    this.boss = boss;
    try {
      for (const { queue, work, handle, schedule, sendAtStart } of this.definitions) {
        const { name, ...options } = queue;
        // Created once, by whichever process comes first; a later version that changes a queue's options updates
        // them in a migration of its own.
        if ((await boss.getQueue(name)) === null) await boss.createQueue(name, options).catch(unlessCreatedMeanwhile);
        await boss.work<object>(name, work, (jobs) => handle(jobs));
        if (schedule !== undefined) await boss.schedule(name, schedule);
        if (sendAtStart !== undefined) await boss.send(name, sendAtStart);
      }
    } catch (error) {
      await this.beforeApplicationShutdown();
      throw error;
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    const boss = this.boss;
    this.boss = undefined;
    // Jobs in flight finish (a webhook answers or times out within 10 s); one cut short runs again after expiry.
    await boss?.stop({ graceful: true, timeout: 15_000, close: false });
  }

  /**
   * Sends a job to `queue`, in the transaction on `connection` when given (it commits or rolls back with it).
   * @throws Error when this process does not work the queues.
   */
  async send(queue: string, data: object, options: SendOptions = {}, connection?: Connection): Promise<void> {
    const db = connection === undefined ? undefined : transactionJobDatabase(connection);
    await this.started().send(queue, data, db === undefined ? options : { ...options, db });
  }

  /** Sends `jobs` to `queue` with one statement, in the transaction on `connection`. */
  async insert(queue: string, jobs: JobInsert[], connection: Connection): Promise<void> {
    if (jobs.length > 0) await this.started().insert(queue, jobs, { db: transactionJobDatabase(connection) });
  }

  /**
   * Starts more workers of the defined queue `queue` in this process, with `work`'s options and the queue's handler;
   * they fetch at once. Returns the id that {@link stopWorkers} takes, or undefined when this process does not work the
   * queues.
   */
  async addWorkers(queue: string, work: WorkOptions): Promise<string | undefined> {
    const boss = this.boss;
    const definition = this.definitions.find((candidate) => candidate.queue.name === queue);
    if (boss === undefined || definition === undefined) return undefined;
    return boss.work<object>(queue, work, (jobs) => definition.handle(jobs));
  }

  /** Stops the workers {@link addWorkers} started as `id` once their jobs in hand are done, without waiting. */
  async stopWorkers(queue: string, id: string): Promise<void> {
    await this.boss?.offWork(queue, { id, wait: false });
  }

  /** This process's running workers of `queue` (none when it does not work the queues). */
  workers(queue: string): QueueWorker[] {
    return (this.boss?.getWipData() ?? [])
      .filter((worker) => worker.name === queue && worker.state === 'active')
      .map((worker) => ({
        id: worker.id,
        workId: worker.workId,
        busy: worker.count > 0,
      }));
  }

  /**
   * Makes up to `count` of this process's idle workers of `queue` fetch now rather than at their next poll; does nothing
   * when this process does not work the queues.
   */
  wake(queue: string, count = 1): void {
    const boss = this.boss;
    if (boss === undefined) return;
    let woken = 0;
    for (const worker of boss.getWipData()) {
      if (woken === count) return;
      if (worker.name !== queue || worker.count > 0) continue;
      boss.notifyWorker(worker.id);
      woken += 1;
    }
  }

  private started(): PgBoss {
    if (this.boss === undefined) throw new Error('The job library runs only with JOBS_ENABLED, after start-up');
    return this.boss;
  }
}

/**
 * A module's scheduled clean-up as a provider: {@link JobQueue.defineCleanUp} of `definition`, whose run is
 * `work(owner)`, `owner` the module's provider (a repository) that does it.
 */
export function cleanUpJob<T>(
  definition: Omit<CleanUpDefinition, 'handle'>,
  owner: Type<T>,
  work: (owner: T) => Promise<unknown>,
): FactoryProvider<void> {
  return {
    provide: `job:${definition.name}`,
    inject: [JobQueue, owner],
    useFactory: (jobs: JobQueue, provider: T) => jobs.defineCleanUp({ ...definition, handle: () => work(provider) }),
  };
}

import {
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  OnApplicationShutdown,
  OnModuleDestroy,
} from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { databaseConfig } from '../config/database.config';
import { isDatabaseUnavailableError, isStatementTimeout } from './database-errors';
import { Connection, lease, onConnection, Release } from './pooled-connection';

/** How a replica stands, as `/health/ready` shows it: whether it answers, its replay lag (ms) and whether it serves reads. */
export interface ReplicaHealth {
  readonly status: 'up' | 'down';
  readonly lagMs: number | null;
  readonly serving: boolean;
}

interface Replica {
  /** `database_replica_<n>`, n counting from 1 in the order of `DATABASE_READ_URLS`. */
  readonly name: string;
  readonly url: string;
  /** The TypeORM slave pool that reads use; undefined until the replica first answers. */
  pool?: Pool;
  /** One connection of the lag checks' own, so that reads waiting for `pool` do not count as lag. */
  probe?: Pool;
  answers: boolean;
  lagMs: number | null;
}

/** A WAL position of the primary (bytes since 0/0) and when it was read (epoch ms). */
interface WalSample {
  readonly at: number;
  readonly lsn: bigint;
}

const PRIMARY_LSN = `SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text AS "lsn"`;
/** NULL on a server that is not a standby. */
const REPLAYED_LSN = `SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::text AS "lsn"`;

/** A standby cancelled the statement for a conflict with recovery: the primary answers it. */
const RECOVERY_CONFLICT = '40001';

type DriverPool = (options: PostgresDriver['options'], credentials: { url: string }) => Promise<Pool>;

/**
 * Routes the reads of {@link read} to the streaming replicas of `DATABASE_READ_URLS` whose replay lag is within
 * `DATABASE_READ_MAX_LAG_MS`, in turn, else to the primary (docs/architecture.md, "Read replicas").
 */
@Injectable()
export class ReadReplicas implements OnApplicationBootstrap, OnModuleDestroy, OnApplicationShutdown {
  private readonly logger = new Logger(ReadReplicas.name);
  private readonly replicas: Replica[];
  private readonly clients = new WeakMap<PoolClient, Replica>();
  private samples: WalSample[] = [];
  /** The primary's connection of the lag checks, apart from the pool the requests wait for. */
  private primaryProbe?: Pool;
  private next = 0;
  private timer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) private readonly config: ConfigType<typeof databaseConfig>,
  ) {
    this.replicas = config.readUrls.map((url, index) => ({
      name: `database_replica_${index + 1}`,
      url,
      answers: false,
      lagMs: null,
    }));
  }

  /**
   * How far behind the primary a read of a serving replica can be, in ms: `DATABASE_READ_MAX_LAG_MS` plus two checks
   * (the lag grows between them); 0 without replicas.
   */
  get lagBoundMs(): number {
    return this.replicas.length === 0 ? 0 : this.config.readMaxLagMs + 2 * this.checkIntervalMs;
  }

  /** How often each replica's replay position is compared with the primary's, in ms. */
  get checkIntervalMs(): number {
    return Math.min(Math.max(Math.round(this.config.readMaxLagMs / 4), 50), 1_000);
  }

  onApplicationBootstrap(): void {
    if (this.replicas.length === 0) return;
    const driver = this.dataSource.driver as PostgresDriver;
    // TypeORM's slave pools follow `replication.slaves`: those that answered at start-up (DatabaseModule).
    const started = (driver.options.replication?.slaves ?? []) as { url?: string }[];
    started.forEach(({ url }, index) => {
      const replica = this.replicas.find((candidate) => candidate.url === url);
      if (replica) replica.pool = driver.slaves[index] as Pool;
    });
    for (const replica of this.replicas.filter(({ pool }) => pool === undefined))
      this.logger.warn(
        `${replica.name} does not answer at start-up: reads go to the others or the primary until it does`,
      );
    // TypeORM picks a slave at random, knowing neither its lag nor whether it answers.
    driver.obtainSlaveConnection = () => this.obtainConnection(driver);
    void this.checkContinually();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** Closes the checks' connections; the read pools are TypeORM's slaves, which it closes. */
  async onApplicationShutdown(): Promise<void> {
    const probes = [this.primaryProbe, ...this.replicas.map(({ probe }) => probe)];
    const opened = probes.filter((probe): probe is Pool => probe !== undefined);
    await Promise.all(opened.map((probe) => probe.end().catch(() => undefined)));
  }

  /**
   * Runs `work` on a connection of a replica that serves, or of the primary when none does; when the replica fails
   * under it (connection lost, conflict with recovery), runs it again on the primary.
   */
  async read<T>(work: (connection: Connection) => Promise<T>): Promise<T> {
    const driver = this.dataSource.driver as PostgresDriver;
    let replica: Replica | undefined;
    try {
      return await onConnection(lease(driver, 'slave'), (connection) => {
        replica = this.clients.get(connection as PoolClient);
        return work(connection);
      });
    } catch (error) {
      if (replica === undefined || !this.isReplicaFault(replica, error)) throw error;
    }
    return onConnection(lease(driver, 'master'), work);
  }

  /** Each replica's {@link ReplicaHealth}, keyed `database_replica_<n>`. */
  health(): Record<string, ReplicaHealth> {
    return Object.fromEntries(
      this.replicas.map((replica) => [
        replica.name,
        { status: replica.answers ? 'up' : 'down', lagMs: replica.lagMs, serving: this.serves(replica) },
      ]),
    );
  }

  private serves(replica: Replica): boolean {
    return (
      replica.answers &&
      replica.pool !== undefined &&
      replica.lagMs !== null &&
      replica.lagMs <= this.config.readMaxLagMs
    );
  }

  private async obtainConnection(driver: PostgresDriver): Promise<[PoolClient, Release]> {
    const serving = this.replicas.filter((replica) => this.serves(replica));
    if (serving.length === 0) return driver.obtainMasterConnection() as Promise<[PoolClient, Release]>;
    const replica = serving[this.next++ % serving.length];
    try {
      const client = await replica.pool!.connect();
      this.clients.set(client, replica);
      // An error tells pg-pool to close the connection rather than lend it again.
      return [client, (error) => client.release(error)];
    } catch (error) {
      this.markDown(replica, error);
      return driver.obtainMasterConnection() as Promise<[PoolClient, Release]>;
    }
  }

  /** Whether the replica, not the statement, failed `work`: then the primary runs it. */
  private isReplicaFault(replica: Replica, error: unknown): boolean {
    if ((error as { code?: unknown }).code === RECOVERY_CONFLICT) return true;
    // Timeouts are not retried on the primary: the statement may be what is slow.
    if (isStatementTimeout(error) || !isDatabaseUnavailableError(error)) return false;
    this.markDown(replica, error);
    return true;
  }

  /** Compares each replica's replay position with the primary's WAL position now; runs every {@link checkIntervalMs}. */
  async check(): Promise<void> {
    const at = Date.now();
    try {
      const driver = this.dataSource.driver as PostgresDriver;
      this.primaryProbe ??= await this.createPool(driver.options.replication!.master.url!, 1);
      const { rows } = await this.primaryProbe.query<{ lsn: string }>(PRIMARY_LSN);
      const { lsn } = rows[0];
      const horizon = at - this.config.readMaxLagMs - 2 * this.checkIntervalMs;
      this.samples = [...this.samples.filter((sample) => sample.at >= horizon), { at, lsn: BigInt(lsn) }];
    } catch {
      // The primary is out of reach: the samples age, and the replicas' lag with them.
    }
    await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
  }

  private async checkContinually(): Promise<void> {
    await this.check();
    if (!this.stopped) this.timer = setTimeout(() => void this.checkContinually(), this.checkIntervalMs).unref();
  }

  private async checkReplica(replica: Replica): Promise<void> {
    try {
      replica.probe ??= await this.createPool(replica.url, 1);
      const { rows } = await replica.probe.query<{ lsn: string | null }>(REPLAYED_LSN);
      const { lsn } = rows[0];
      replica.pool ??= await this.createReadPool(replica.url);
      if (!replica.answers) this.logger.log(`${replica.name} answers`);
      replica.answers = true;
      replica.lagMs = lsn === null ? null : this.lagOf(BigInt(lsn));
    } catch (error) {
      this.markDown(replica, error);
    }
  }

  /** Time since the newest primary position the replica has replayed was current: an upper bound of its lag. */
  private lagOf(replayed: bigint): number | null {
    const now = Date.now();
    const caughtUp = this.samples.findLast((sample) => sample.lsn <= replayed) ?? this.samples[0];
    return caughtUp === undefined ? null : now - caughtUp.at;
  }

  /** A pool of `url` with the driver's options and `size` connections (default: the service's pool size). */
  private createPool(url: string, size?: number): Promise<Pool> {
    const driver = this.dataSource.driver as PostgresDriver;
    // The driver's own pool factory (protected), so the pool has the options of the others.
    const createPool = (driver as unknown as { createPool: DriverPool }).createPool.bind(driver);
    return createPool({ ...driver.options, poolSize: size ?? driver.options.poolSize }, { url });
  }

  /** A read pool for a replica that did not answer at start-up, among TypeORM's slaves so that it closes it too. */
  private async createReadPool(url: string): Promise<Pool> {
    const pool = await this.createPool(url);
    (this.dataSource.driver as PostgresDriver).slaves.push(pool);
    return pool;
  }

  private markDown(replica: Replica, error: unknown): void {
    if (replica.answers) this.logger.warn(`${replica.name} does not answer, reads go elsewhere: ${String(error)}`);
    replica.answers = false;
    replica.lagMs = null;
  }
}

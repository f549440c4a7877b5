import { setTimeout as sleep } from 'node:timers/promises';
import type { TestDatabase } from './test-database';
import { ServerSettings, ThrowawayCluster, throwawayClusterUnavailableReason } from './throwaway-postgres';
import { patience } from './patience';

// A throwaway primary and its streaming replicas (hot standbys made with `pg_basebackup -R`), each on a free port,
// for the read-replica tests: replication the test can pause, make synchronous (remote_apply) or cut by stopping a
// replica. fsync is off: the machine does not crash under the tests, and every commit waits on a replica when
// synchronous.

const SETTINGS: ServerSettings = { wal_level: 'replica', max_wal_senders: 10, fsync: 'off' };
/** How long the waits here poll before they fail. */
const WAIT_MS = patience(30_000);

/** Why a primary with replicas cannot be made here (no `pg_basebackup` either), or undefined when it can. */
export function replicatedClusterUnavailableReason(): string | undefined {
  return throwawayClusterUnavailableReason(['initdb', 'pg_ctl', 'pg_basebackup']);
}

/** Polls `probe` every 50 ms until it is true; @throws `what` after {@link WAIT_MS}. */
async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out after ${WAIT_MS} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** A hot standby following {@link ReplicatedCluster.primary}; reads only. */
export class StreamingReplica {
  constructor(
    private readonly server: ThrowawayCluster,
    private readonly primary: ThrowawayCluster,
    /** Its `cluster_name`, the `application_name` the primary's `pg_stat_replication` shows. */
    readonly name: string,
  ) {}

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return this.server.url(database);
  }

  /** Runs one statement on the replica. */
  query<T = Record<string, unknown>>(sql: string, database?: string): Promise<T[]> {
    return this.server.query<T>(sql, database);
  }

  /** Stops applying WAL (it still receives it): from now on the replica shows the primary as it is now. */
  async pauseReplay(): Promise<void> {
    await this.query('SELECT pg_wal_replay_pause()');
    await until(`${this.name} to pause replay`, async () => {
      const [row] = await this.query<{ state: string }>('SELECT pg_get_wal_replay_pause_state() AS state');
      return row.state === 'paused';
    });
  }

  /** Applies WAL again. */
  async resumeReplay(): Promise<void> {
    await this.query('SELECT pg_wal_replay_resume()');
  }

  /** Resolves once the replica has applied everything the primary has written so far. */
  async waitForReplay(): Promise<void> {
    const [{ lsn }] = await this.primary.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
    await until(`${this.name} to replay up to ${lsn}`, async () => {
      const [row] = await this.query<{ done: boolean }>(`SELECT pg_last_wal_replay_lsn() >= '${lsn}' AS done`);
      return row.done;
    });
  }

  /** Stops the server: `immediate` is a crash (every session cut, no shutdown checkpoint). */
  stop(mode: 'immediate' | 'fast' = 'fast'): Promise<void> {
    return this.server.stop(mode);
  }

  /** Starts the server again (it resumes streaming from where it stopped) and waits until it accepts sessions. */
  start(): Promise<void> {
    return this.server.start();
  }

  /** Stops the server and removes its files. */
  destroy(): Promise<void> {
    return this.server.destroy();
  }
}

/** How {@link ReplicatedCluster.create} sets the cluster up. */
interface ReplicatedClusterOptions {
  /** Number of streaming replicas (default 1). */
  readonly replicas?: number;
  /** Start with synchronous replication, commits waiting for every replica to apply them (default false). */
  readonly synchronous?: boolean;
}

/** A throwaway primary cluster and its streaming replicas, trust auth on 127.0.0.1. */
export class ReplicatedCluster {
  private constructor(
    readonly primary: ThrowawayCluster,
    readonly replicas: readonly StreamingReplica[],
  ) {}

  /**
   * initdb's the primary, then `pg_basebackup -R`s each replica from it and starts it.
   * @throws when the binaries are missing (check {@link replicatedClusterUnavailableReason} first).
   */
  static async create({
    replicas = 1,
    synchronous = false,
  }: ReplicatedClusterOptions = {}): Promise<ReplicatedCluster> {
    const primary = await ThrowawayCluster.create(SETTINGS);
    const standbys: StreamingReplica[] = [];
    const cluster = new ReplicatedCluster(primary, standbys);
    try {
      for (let i = 1; i <= replicas; i++) {
        const name = `replica_${i}`;
        const server = await ThrowawayCluster.standbyOf(primary, {
          ...SETTINGS,
          hot_standby: 'on',
          cluster_name: name,
        });
        standbys.push(new StreamingReplica(server, primary, name));
      }
      await until('every replica to stream', async () => {
        const rows = await primary.query("SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'");
        return rows.length === replicas;
      });
      if (synchronous) await cluster.setSynchronous(true);
      return cluster;
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
  }

  /**
   * Synchronous replication on or off: on, every commit on the primary returns only once every replica has applied
   * it (`synchronous_commit = remote_apply`), so a read on a replica after a write sees it. Resolves once in effect.
   */
  async setSynchronous(on: boolean): Promise<void> {
    const names = `FIRST ${this.replicas.length} (*)`;
    await this.primary.query(
      on ? `ALTER SYSTEM SET synchronous_standby_names = '${names}'` : 'ALTER SYSTEM RESET synchronous_standby_names',
    );
    await this.primary.query(
      on ? "ALTER SYSTEM SET synchronous_commit = 'remote_apply'" : 'ALTER SYSTEM RESET synchronous_commit',
    );
    await this.primary.query('SELECT pg_reload_conf()');
    const state = on ? 'sync' : 'async';
    await until(`replication to be ${state}`, async () => {
      const [setting] = await this.primary.query<{ value: string }>(
        "SELECT current_setting('synchronous_commit') AS value",
      );
      const rows = await this.primary.query(`SELECT 1 FROM pg_stat_replication WHERE sync_state = '${state}'`);
      return setting.value === (on ? 'remote_apply' : 'on') && rows.length === this.replicas.length;
    });
  }

  /** Creates an empty database on the primary and waits until every replica has it. */
  async createDatabase(name: string): Promise<void> {
    await this.primary.query(`CREATE DATABASE "${name}"`);
    for (const replica of this.replicas) await replica.waitForReplay();
  }

  /**
   * A fresh database for apps: `DATABASE_URL` on the primary, `DATABASE_READ_URLS` on the replicas; `drop` drops it
   * (close its apps first).
   */
  async testDatabase(name = `blog_replicas_${Math.random().toString(36).slice(2, 8)}`): Promise<TestDatabase> {
    await this.createDatabase(name);
    return {
      kind: 'postgres',
      env: {
        DATABASE_URL: this.primary.url(name),
        DATABASE_READ_URLS: this.replicas.map((replica) => replica.url(name)).join(','),
      },
      drop: async () => {
        await this.primary.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      },
    };
  }

  /** Waits until every replica has applied everything the primary has written so far. */
  async waitForReplay(): Promise<void> {
    for (const replica of this.replicas) await replica.waitForReplay();
  }

  /** Stops and removes the replicas, then the primary. */
  async destroy(): Promise<void> {
    for (const replica of this.replicas) await replica.destroy();
    await this.primary.destroy();
  }
}

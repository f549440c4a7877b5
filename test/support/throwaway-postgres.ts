import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import {
  basebackupArgs,
  commandAs,
  findPostgresBin,
  initdbArgs,
  pgCtlStartArgs,
  POSTGRES_PACKAGE_ROOT,
  postgresUser,
} from './postgres-setup';
import { patience } from './patience';
import { freePort } from './service-process';

// A PostgreSQL cluster of the test's own, on a free port, that the test may stop and start, or a streaming
// replica of one: `initdb`, `pg_ctl` and `pg_basebackup` from the PostgreSQL packages
// (/usr/lib/postgresql/<version>/bin), run as the `postgres` user when the tests run as root (PostgreSQL
// refuses to run as root), with the arguments of postgres-setup.js, which the bench uses too.

const run = promisify(execFile);

/** What a cluster needs; a replica ({@link ThrowawayCluster.standbyOf}) also needs `pg_basebackup`. */
const CLUSTER_TOOLS: readonly string[] = ['initdb', 'pg_ctl'];

/**
 * Why a throwaway cluster (with `tools`, e.g. `pg_basebackup` for replicas) cannot be made here, or undefined when
 * it can: the binaries are missing, or running as root without a `postgres` user to run them as.
 */
export function throwawayClusterUnavailableReason(tools = CLUSTER_TOOLS): string | undefined {
  if (findPostgresBin(tools) === undefined) return `no ${tools.join('/')} under ${POSTGRES_PACKAGE_ROOT}/*/bin`;
  if (userInfo().uid === 0 && postgresUser() === undefined)
    return 'running as root and there is no postgres user to run initdb as';
  return undefined;
}

/** Server settings given as `-c name=value` at every start (values without spaces: pg_ctl passes them through a shell). */
export type ServerSettings = Readonly<Record<string, string | number>>;

/** A PostgreSQL cluster in a temporary directory, listening on 127.0.0.1:{@link port}, trust auth. */
export class ThrowawayCluster {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly runAs: string | undefined,
    private readonly settings: ServerSettings,
    readonly port: number,
  ) {}

  /**
   * Creates the cluster (`initdb`) and starts it, with `settings` as `-c` options of the server.
   * @throws when the binaries are missing (check {@link throwawayClusterUnavailableReason} first).
   */
  static async create(settings: ServerSettings = {}): Promise<ThrowawayCluster> {
    const cluster = await ThrowawayCluster.prepare(settings);
    await cluster.exec('initdb', initdbArgs(cluster.dataDir));
    await cluster.start();
    return cluster;
  }

  /**
   * A streaming replica of `primary` (`pg_basebackup -R`: a hot standby that follows it), started on a port of its own.
   * initdb's pg_hba.conf already trusts replication connections from 127.0.0.1.
   */
  static async standbyOf(primary: ThrowawayCluster, settings: ServerSettings = {}): Promise<ThrowawayCluster> {
    const standby = await ThrowawayCluster.prepare(settings, primary.bin);
    await standby.exec('pg_basebackup', basebackupArgs(standby.dataDir, primary.port));
    await standby.start();
    return standby;
  }

  /** An empty directory owned by whoever runs the server, and a free port. */
  private static async prepare(settings: ServerSettings, bin = findPostgresBin()): Promise<ThrowawayCluster> {
    if (bin === undefined) throw new Error('initdb/pg_ctl not found');
    const dir = mkdtempSync(join(tmpdir(), 'blog-pg-'));
    let runAs: string | undefined;
    if (userInfo().uid === 0) {
      const user = postgresUser();
      if (user === undefined) throw new Error('no postgres user');
      chownSync(dir, user.uid, user.gid);
      runAs = 'postgres';
    }
    return new ThrowawayCluster(bin, dir, runAs, settings, await freePort());
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private exec(tool: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
    const [file, argv] = commandAs(this.runAs, join(this.bin, tool), args);
    return run(file, argv, { timeout: patience(60_000) });
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server and waits until it accepts connections (`pg_ctl start -w`). */
  async start(): Promise<void> {
    await this.exec('pg_ctl', pgCtlStartArgs(this.dataDir, this.dir, this.port, this.settings));
  }

  /** Stops the server: `immediate` is a crash (no checkpoint, every session cut). */
  async stop(mode: 'immediate' | 'fast' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  /** Creates an empty database. */
  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE "${name}"`);
    return this.url(name);
  }

  /** Runs one statement in `database` on a session of its own and returns its rows. */
  async query<T = Record<string, unknown>>(sql: string, database = 'postgres'): Promise<T[]> {
    const client = new Client({ connectionString: this.url(database) });
    await client.connect();
    try {
      return (await client.query(sql)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** Stops the server if it runs and removes every file of the cluster. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

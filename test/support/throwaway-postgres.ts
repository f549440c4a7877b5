import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './service-process';

// A PostgreSQL cluster of the test's own, on a free port, that the test may stop and start:
// `initdb` and `pg_ctl` from the PostgreSQL packages (/usr/lib/postgresql/<version>/bin), run as
// the `postgres` user when the tests run as root (PostgreSQL refuses to run as root).

const run = promisify(execFile);
const PACKAGE_ROOT = '/usr/lib/postgresql';

/** The bin directory of the newest installed PostgreSQL that has initdb and pg_ctl, if any. */
function findPostgresBin(): string | undefined {
  if (!existsSync(PACKAGE_ROOT)) return undefined;
  const versions = readdirSync(PACKAGE_ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  return versions
    .map((version) => join(PACKAGE_ROOT, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'pg_ctl')));
}

/** uid and gid of the `postgres` user, or undefined when there is none. */
export function postgresUser(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string): number =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/**
 * Why a throwaway cluster cannot be made here, or undefined when it can: no initdb / pg_ctl, or
 * running as root without a `postgres` user to run them as.
 */
export function throwawayClusterUnavailableReason(): string | undefined {
  if (findPostgresBin() === undefined) return `no initdb/pg_ctl under ${PACKAGE_ROOT}/*/bin`;
  if (userInfo().uid === 0 && postgresUser() === undefined)
    return 'running as root and there is no postgres user to run initdb as';
  return undefined;
}

/** A PostgreSQL cluster in a temporary directory, listening on 127.0.0.1:{@link port}, trust auth. */
export class ThrowawayCluster {
  private constructor(
    private readonly bin: string,
    private readonly dir: string,
    private readonly runAs: string | undefined,
    readonly port: number,
  ) {}

  /**
   * Creates the cluster (`initdb`) and starts it.
   * @throws when the binaries are missing (check {@link throwawayClusterUnavailableReason} first).
   */
  static async create(): Promise<ThrowawayCluster> {
    const bin = findPostgresBin();
    if (bin === undefined) throw new Error('initdb/pg_ctl not found');
    const dir = mkdtempSync(join(tmpdir(), 'blog-pg-'));
    let runAs: string | undefined;
    if (userInfo().uid === 0) {
      const user = postgresUser();
      if (user === undefined) throw new Error('no postgres user');
      chownSync(dir, user.uid, user.gid);
      runAs = 'postgres';
    }
    const cluster = new ThrowawayCluster(bin, dir, runAs, await freePort());
    await cluster.exec('initdb', [
      '-D',
      cluster.dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
      '--locale=C',
    ]);
    await cluster.start();
    return cluster;
  }

  private get dataDir(): string {
    return join(this.dir, 'data');
  }

  private exec(tool: string, args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
    const command = join(this.bin, tool);
    return this.runAs === undefined
      ? run(command, [...args], { timeout: 60_000 })
      : run('runuser', ['-u', this.runAs, '--', command, ...args], { timeout: 60_000 });
  }

  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** Starts the server and waits until it accepts connections (`pg_ctl start -w`). */
  async start(): Promise<void> {
    await this.exec('pg_ctl', [
      '-D',
      this.dataDir,
      '-l',
      join(this.dir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
  }

  /** Stops the server: `immediate` is a crash (no checkpoint, every session cut). */
  async stop(mode: 'immediate' | 'fast' = 'fast'): Promise<void> {
    await this.exec('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', 'stop']);
  }

  /** Creates an empty database. */
  async createDatabase(name: string): Promise<string> {
    const client = new Client({ connectionString: this.url() });
    await client.connect();
    try {
      await client.query(`CREATE DATABASE "${name}"`);
    } finally {
      await client.end();
    }
    return this.url(name);
  }

  /** Stops the server if it runs and removes every file of the cluster. */
  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

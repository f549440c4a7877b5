import { ChildProcess, spawn } from 'node:child_process';
import { accessSync, chownSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { SESSION_SETTINGS } from '../../src/database/data-source-options';
import { freePort } from './service-process';
import { PGBOUNCER_BIN, pgBouncerIni, pgBouncerUserList, postgresUser } from './postgres-setup';
import { patience } from './patience';

// A PgBouncer of the test's own, on a free port, in transaction pooling mode in front of a PostgreSQL server:
// Debian's `pgbouncer` package (/usr/sbin/pgbouncer), configured in a temporary directory, run as the
// `postgres` user when the tests run as root (PgBouncer refuses to run as root).

/** Why a throwaway PgBouncer cannot be started here, or undefined when it can. */
export function pgBouncerUnavailableReason(): string | undefined {
  try {
    accessSync(PGBOUNCER_BIN, constants.X_OK);
  } catch {
    return `${PGBOUNCER_BIN} is not installed (apt-get install pgbouncer)`;
  }
  if (userInfo().uid === 0 && postgresUser() === undefined)
    return 'running as root and there is no postgres user to run pgbouncer as';
  return undefined;
}

/** A row of the admin console's `SHOW CLIENTS` / `SHOW SERVERS` (the columns the tests read). */
interface PoolConnection {
  readonly database: string;
  readonly state: string;
  /** The PostgreSQL backend's pid (`SHOW SERVERS`); 0 for a client. */
  readonly remote_pid: string;
}

/** How {@link ThrowawayPgBouncer.start} configures PgBouncer. */
interface PgBouncerSettings {
  /** `default_pool_size`: server connections per database and user (PgBouncer's default: 20). */
  readonly poolSize?: number;
}

/** PgBouncer 1.18 on 127.0.0.1:{@link port}, `pool_mode = transaction`, every database of `upstream` behind it. */
export class ThrowawayPgBouncer {
  private constructor(
    private readonly dir: string,
    private readonly child: ChildProcess,
    private readonly exited: Promise<void>,
    private readonly user: string,
    readonly port: number,
  ) {}

  /**
   * Writes `pgbouncer.ini` and `userlist.txt` (the user and password of `upstream`, a `postgres://` URL of the
   * server), starts PgBouncer and waits until its admin console answers.
   * @throws when it exits or does not answer within 15 s, with its log.
   */
  static async start(upstream: string, settings: PgBouncerSettings = {}): Promise<ThrowawayPgBouncer> {
    const server = new URL(upstream);
    const user = decodeURIComponent(server.username) || 'postgres';
    const password = decodeURIComponent(server.password);
    const dir = mkdtempSync(join(tmpdir(), 'blog-pgbouncer-'));
    const port = await freePort();
    writeFileSync(join(dir, 'userlist.txt'), pgBouncerUserList(user, password), { mode: 0o600 });
    const upstreamAddress = { host: server.hostname || '127.0.0.1', port: server.port || 5432 };
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      pgBouncerIni({ dir, port, upstream: upstreamAddress, user, poolSize: settings.poolSize }),
    );
    const args = [join(dir, 'pgbouncer.ini')];
    if (userInfo().uid === 0) {
      const owner = postgresUser();
      if (owner === undefined) throw new Error('no postgres user to run pgbouncer as');
      chownSync(dir, owner.uid, owner.gid);
      for (const file of ['userlist.txt', 'pgbouncer.ini']) chownSync(join(dir, file), owner.uid, owner.gid);
      args.unshift('-u', 'postgres');
    }
    const child = spawn(PGBOUNCER_BIN, args, { stdio: 'ignore' });
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const bouncer = new ThrowawayPgBouncer(dir, child, exited, user, port);
    const deadline = Date.now() + patience(15_000);
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null)
        throw new Error(`pgbouncer exited (${child.exitCode ?? child.signalCode}):\n${bouncer.log()}`);
      try {
        await bouncer.admin('SHOW VERSION');
        return bouncer;
      } catch (error) {
        if (Date.now() > deadline) {
          const log = bouncer.log();
          await bouncer.stop();
          throw new Error(`pgbouncer did not answer on port ${port}:\n${log}`, { cause: error });
        }
        await new Promise((done) => setTimeout(done, 100));
      }
    }
  }

  /** `postgres://<user>@127.0.0.1:<port>/<database>`: a database of the server, through PgBouncer. */
  url(database: string): string {
    return `postgres://${encodeURIComponent(this.user)}@127.0.0.1:${this.port}/${encodeURIComponent(database)}`;
  }

  /** Runs an admin console command (`SHOW SERVERS`, `SHOW CLIENTS`, …) and returns its rows. */
  async admin<T = Record<string, string>>(command: string): Promise<T[]> {
    const client = new Client({ connectionString: this.url('pgbouncer') });
    await client.connect();
    try {
      return (await client.query(command)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** The connections PgBouncer holds to `database`: `SHOW SERVERS`, or its clients' with `SHOW CLIENTS`. */
  async connections(kind: 'SERVERS' | 'CLIENTS', database: string): Promise<PoolConnection[]> {
    return (await this.admin<PoolConnection>(`SHOW ${kind}`)).filter((row) => row.database === database);
  }

  /** PgBouncer's own log, for failure messages. */
  log(): string {
    try {
      return readFileSync(join(this.dir, 'pgbouncer.log'), 'utf8');
    } catch {
      return '(no log)';
    }
  }

  /** Stops PgBouncer (SIGTERM: immediate shutdown) and removes its files. */
  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      await this.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * Gives the role of `serverUrl` (a direct `postgres://` URL of the server) in `database` the session settings the service needs behind PgBouncer, as
 * docs/operations.md asks the operator to (`ALTER ROLE … IN DATABASE … SET`); dropping the database drops them.
 */
export async function applySessionSettings(serverUrl: string, database: string): Promise<void> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    for (const [name, value] of Object.entries(SESSION_SETTINGS))
      await client.query(`ALTER ROLE CURRENT_USER IN DATABASE "${database}" SET ${name} = '${value}'`);
  } finally {
    await client.end();
  }
}

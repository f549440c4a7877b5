// The bench's throwaway database processes: a PostgreSQL primary (initdb), a streaming replica of it
// (pg_basebackup -R) and PgBouncer in transaction mode, each on a free port in a temporary directory,
// plus the CPU time of a process and its children. They are set up as the tests set up theirs, with the
// arguments of test/support/postgres-setup.js; as root they run as the `postgres` user. Everything
// started here is stopped and removed by stopAll(), which also runs on process exit, so a failing bench
// leaves no server behind.
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  PGBOUNCER_BIN,
  POSTGRES_PACKAGE_ROOT,
  basebackupArgs,
  commandAs,
  findPostgresBin,
  initdbArgs,
  pgBouncerIni,
  pgBouncerUserList,
  pgCtlStartArgs,
  postgresUser,
} from '../test/support/postgres-setup.js';

const runAs = userInfo().uid === 0 ? 'postgres' : undefined;
const live = new Set();

/** The bin directory of the newest installed PostgreSQL with the replica's tools too. */
function postgresBin() {
  const bin = findPostgresBin(['initdb', 'pg_ctl', 'pg_basebackup']);
  if (bin === undefined) throw new Error(`no PostgreSQL binaries under ${POSTGRES_PACKAGE_ROOT}/*/bin`);
  return bin;
}

function ownDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const owner = runAs === undefined ? undefined : postgresUser();
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  return dir;
}

function asPostgres(command, args) {
  const [file, argv] = commandAs(runAs, command, args);
  execFileSync(file, argv, { stdio: ['ignore', 'ignore', 'pipe'], timeout: 300_000 });
}

/**
 * A PostgreSQL cluster on 127.0.0.1:`port`, trust authentication: a fresh one (initdb), or with
 * `primary` a hot standby streaming from it. autovacuum is off as on the machine's cluster: the bench
 * vacuums after seeding, and a vacuum during a run would blur its CPU figures.
 */
export function startPostgres(port, primary) {
  const bin = postgresBin();
  const dir = ownDir(primary ? 'blog-bench-replica-' : 'blog-bench-primary-');
  const data = join(dir, 'data');
  const cluster = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    /** The postmaster's pid, the parent of every backend. */
    pid: () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]),
    stop() {
      live.delete(cluster);
      try {
        asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } catch {
        // not running
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  live.add(cluster);
  if (primary) asPostgres(join(bin, 'pg_basebackup'), basebackupArgs(data, primary.port));
  else asPostgres(join(bin, 'initdb'), initdbArgs(data));
  asPostgres(join(bin, 'pg_ctl'), pgCtlStartArgs(data, dir, port, { autovacuum: 'off' }));
  return cluster;
}

/**
 * PgBouncer on 127.0.0.1:`port` in transaction mode in front of every database of `upstreamPort`,
 * `poolSize` server connections per database and user. @returns once its admin console could answer.
 */
export async function startPgBouncer(port, upstreamPort, poolSize) {
  const dir = ownDir('blog-bench-pgbouncer-');
  const files = { ini: join(dir, 'pgbouncer.ini'), users: join(dir, 'userlist.txt'), log: join(dir, 'pgbouncer.log') };
  writeFileSync(files.users, pgBouncerUserList('postgres'));
  const upstream = { host: '127.0.0.1', port: upstreamPort };
  writeFileSync(files.ini, pgBouncerIni({ dir, port, upstream, user: 'postgres', poolSize }));
  if (runAs !== undefined)
    for (const file of [files.ini, files.users]) execFileSync('chown', ['postgres:postgres', file]);
  // `-u postgres` rather than runuser: the spawned pid is then PgBouncer's own, whose CPU the bench reads.
  const child = spawn(PGBOUNCER_BIN, [...(runAs === undefined ? [] : ['-u', runAs]), files.ini], { stdio: 'ignore' });
  const bouncer = {
    port,
    pid: () => child.pid,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    stop() {
      live.delete(bouncer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  live.add(bouncer);
  const { default: pg } = await import('pg');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new pg.Client({ connectionString: bouncer.url('pgbouncer') });
    try {
      await client.connect();
      await client.query('SHOW VERSION');
      return bouncer;
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        const log = existsSync(files.log) ? readFileSync(files.log, 'utf8') : '(no log)';
        throw new Error(`pgbouncer did not start: ${error.message}\n${log}`, { cause: error });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
}

/** Stops and removes everything this module started; safe to call more than once. */
export function stopAll() {
  for (const resource of [...live].reverse()) resource.stop();
}
process.on('exit', stopAll);

/** utime, stime, cutime, cstime and ppid of `pid` (/proc/<pid>/stat, in clock ticks). */
function stat(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      ppid: Number(fields[1]),
      own: Number(fields[11]) + Number(fields[12]),
      reaped: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU time, in ms, that `pid` and all its children have used: its own, that of the children it has
 * already reaped (a PostgreSQL backend ends when its client disconnects) and that of the live ones.
 * Assumes clock ticks of 10 ms, as bench.mjs does.
 */
export function treeCpuMs(pid) {
  const root = stat(pid);
  if (root === undefined) return 0;
  let ticks = root.own + root.reaped;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const child = stat(name);
    if (child?.ppid === pid) ticks += child.own;
  }
  return ticks * 10;
}

'use strict';
// How a PostgreSQL cluster (initdb, pg_ctl, pg_basebackup) and a PgBouncer of one's own are set up: the programs, the
// user they run as, their arguments and PgBouncer's configuration. The tests (throwaway-postgres.ts, pgbouncer.ts) and
// the bench (bench/topology.mjs) run them their own way, with the same arguments. CommonJS, so both can load it.
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const { patience } = require('./patience');

/** Where Debian's PostgreSQL packages install their programs: `<root>/<version>/bin`. */
const POSTGRES_PACKAGE_ROOT = '/usr/lib/postgresql';

/** Where Debian's `pgbouncer` package installs the binary. */
const PGBOUNCER_BIN = '/usr/sbin/pgbouncer';

/** The bin directory of the newest installed PostgreSQL that has every one of `tools`, if any. */
function findPostgresBin(tools = ['initdb', 'pg_ctl']) {
  if (!existsSync(POSTGRES_PACKAGE_ROOT)) return undefined;
  return readdirSync(POSTGRES_PACKAGE_ROOT)
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a))
    .map((version) => join(POSTGRES_PACKAGE_ROOT, version, 'bin'))
    .find((bin) => tools.every((tool) => existsSync(join(bin, tool))));
}

/** uid and gid of the `postgres` user, who runs the servers when root runs the tests; undefined when there is none. */
function postgresUser() {
  try {
    const id = (flag) =>
      Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** `[file, args]` that run `command` as `runAs` (`runuser`), or as this user when `runAs` is undefined. */
function commandAs(runAs, command, args) {
  return runAs === undefined ? [command, [...args]] : ['runuser', ['-u', runAs, '--', command, ...args]];
}

/** initdb's arguments: superuser `postgres`, trust, UTF-8 (not the C locale: under it text search takes every non-ASCII character for a letter). */
function initdbArgs(dataDir) {
  return ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C.UTF-8'];
}

/** pg_basebackup's arguments for a streaming replica of the primary on 127.0.0.1:`primaryPort` (`-R`: a hot standby). */
function basebackupArgs(dataDir, primaryPort) {
  return [
    ...['-D', dataDir, '-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres'],
    ...['-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
  ];
}

/**
 * `pg_ctl start`'s arguments: 127.0.0.1:`port`, its socket in `dir`, `settings` as `-c name=value` (no spaces in
 * values); it waits for the server up to patience(60 s).
 */
function pgCtlStartArgs(dataDir, dir, port, settings = {}) {
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
  ];
  return [
    '-D',
    dataDir,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-t',
    String(patience(60_000) / 1000),
    '-o',
    options.join(' '),
    'start',
  ];
}

/**
 * `pgbouncer.ini` of a PgBouncer on 127.0.0.1:`port` in transaction mode in front of every database of `upstream`
 * (`{host, port}`), `user` its admin, `poolSize` server connections per database and user, its files in `dir`.
 */
function pgBouncerIni({ dir, port, upstream, user, poolSize = 20 }) {
  return [
    '[databases]',
    // The fallback entry: every database of the server, those made later included.
    `* = host=${upstream.host} port=${upstream.port}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'pool_mode = transaction',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `admin_users = ${user}`,
    `default_pool_size = ${poolSize}`,
    'max_client_conn = 500',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    '',
  ].join('\n');
}

/** `userlist.txt` naming `user` with `password` (empty: none; trust). */
function pgBouncerUserList(user, password = '') {
  const quoted = (value) => `"${value.replaceAll('"', '""')}"`;
  return `${quoted(user)} ${quoted(password)}\n`;
}

module.exports = {
  POSTGRES_PACKAGE_ROOT,
  PGBOUNCER_BIN,
  findPostgresBin,
  postgresUser,
  commandAs,
  initdbArgs,
  basebackupArgs,
  pgCtlStartArgs,
  pgBouncerIni,
  pgBouncerUserList,
};

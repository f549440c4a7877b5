// `node bench/startup.mjs RUNS name=dir …`: start-up time of built services. Spawns each `dir`'s `dist/main.js`
// (NODE_ENV=production) and polls /health/live every 5 ms; prints per build and database the medians of the time to
// the "Listening on" log line, to the first 200, and the CPU (user + system, from /proc) the process used until then.
// Builds alternate run by run; a first, unmeasured run of each migrates its own embedded data directory and its own
// PostgreSQL database (postgres://postgres@127.0.0.1:5432/startup_<name>, dropped at the end), which later runs reuse.
// MODES=embedded or MODES=postgres runs one database only.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const runs = Number(process.argv[2]);
const builds = process.argv.slice(3).map((arg) => {
  const [name, dir] = arg.split('=');
  return { name, dir: resolve(dir) };
});
if (!(runs > 0) || builds.length === 0) {
  console.error('usage: node bench/startup.mjs RUNS name=dir [name=dir …]');
  process.exit(2);
}
const modes = (process.env.MODES ?? 'embedded,postgres').split(',');
const server = 'postgres://postgres@127.0.0.1:5432';
const baseEnv = { ...process.env, NODE_ENV: 'production', JWT_SECRET: 'startup-'.padEnd(32, '0') };
delete baseEnv.NODE_OPTIONS;
delete baseEnv.DATABASE_URL;

const psql = (sql) => execFileSync('psql', [`${server}/postgres`, '-qc', sql], { stdio: 'ignore' });
const dataDirs = [];
const databases = [];
const envOf = {};
for (const { name } of builds) {
  const dir = mkdtempSync(join(tmpdir(), 'startup-'));
  dataDirs.push(dir);
  envOf[`${name} embedded`] = { DATA_DIR: dir };
  if (modes.includes('postgres')) {
    const database = `startup_${name.replace(/\W/g, '_')}`;
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    psql(`CREATE DATABASE ${database}`);
    databases.push(database);
    envOf[`${name} postgres`] = { DATABASE_URL: `${server}/${database}` };
  }
}

/** A port no process listens on now. */
function freePort() {
  return new Promise((done, fail) => {
    const probe = createServer().once('error', fail);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => done(port));
    });
  });
}

/** One start of `build` on `mode`: ms to "Listening on", ms to the first 200, CPU ms until then. */
async function start(build, mode) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/health/live`;
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/main.js'], {
    cwd: build.dir,
    env: { ...baseEnv, ...envOf[`${build.name} ${mode}`], PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let listening;
  child.stdout.on('data', (chunk) => {
    output += chunk;
    if (listening === undefined && output.includes('Listening on')) listening = performance.now() - started;
  });
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise((done) => child.on('exit', done));
  let ready;
  while (ready === undefined) {
    if (child.exitCode !== null) throw new Error(`${build.name} on ${mode} exited:\n${output.slice(-3000)}`);
    try {
      if ((await fetch(url)).status === 200) ready = performance.now() - started;
    } catch {
      // not listening yet
    }
    if (ready === undefined) await new Promise((done) => setTimeout(done, 5));
  }
  // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms.
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) * 10;
  child.kill('SIGTERM');
  await exited;
  return { listening, ready, cpu };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = {};
try {
  for (const mode of modes) for (const build of builds) await start(build, mode);
  for (let i = 0; i < runs; i++) {
    for (const mode of modes) {
      for (const build of builds) (results[`${build.name} ${mode}`] ??= []).push(await start(build, mode));
    }
  }
  console.log(`node ${process.version}, ${runs} runs each: medians in ms (first 200: min–max)`);
  for (const [key, rows] of Object.entries(results)) {
    const ready = rows.map((row) => row.ready);
    const [listening, first, cpu] = ['listening', 'ready', 'cpu'].map((k) => median(rows.map((row) => row[k])));
    console.log(
      `${key.padEnd(24)} listening ${listening.toFixed(0).padStart(6)}  first 200 ${first.toFixed(0).padStart(6)} ` +
        `(${Math.min(...ready).toFixed(0)}–${Math.max(...ready).toFixed(0)})  CPU ${cpu.toFixed(0).padStart(6)}`,
    );
  }
} finally {
  for (const database of databases) psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}

import { ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { Agent, IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { lock } from 'proper-lockfile';
import { mintToken } from '../../src/auth/token-minter';
import { bearer } from './blog-api';
import { environmentVariableNames } from './environment-variables';
import { patience } from './patience';

// The built service as a real process: compiled once per state of src/ (what `npm run build` makes, without touching
// ./dist) and copied into a scratch directory per test file, started with `node dist/main.js` and an exact
// environment, spoken to over real HTTP, and sent real signals.

const ROOT = resolve(__dirname, '..', '..');
const TSC = require.resolve('typescript/bin/tsc', { paths: [ROOT] });

/** The `JWT_SECRET` the specs of the service as a process start it with. */
export const PROCESS_JWT_SECRET = 'process-e2e-secret-0123456789abcdefghijklmnopqrst';

/** An `Authorization` value for `sub` that a service started with {@link PROCESS_JWT_SECRET} accepts (1 h). */
export function processAuthorization(sub: string): string {
  return bearer(mintToken({ secret: PROCESS_JWT_SECRET }, { sub, ttl: '1h' }));
}

/**
 * Dropped from the runner's environment before a process is spawned: every variable of the
 * configuration schema, and what could change how node, ts-node or the e2e database set-up behave.
 */
const INHERITED_TO_DROP: readonly string[] = [
  ...environmentVariableNames(),
  'NODE_OPTIONS',
  'E2E_SERVER_URL',
  'E2E_DATABASE_PREFIX',
  'E2E_PGBOUNCER_URL',
];

/**
 * The runner's environment without {@link INHERITED_TO_DROP}, plus `vars` (an `undefined` value
 * leaves the variable out): a spawned service sees exactly the configuration a test gives it.
 */
export function childEnvironment(vars: Readonly<Record<string, string | undefined>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of INHERITED_TO_DROP) delete env[name];
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

const scratchDirs: string[] = [];
const running = new Set<ChildProcess>();

/** A new empty directory, removed by {@link cleanUpServiceProcesses}. */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'blog-service-e2e-'));
  scratchDirs.push(dir);
  return dir;
}

/** Kills every service still running and removes the scratch directories. For `afterAll`. */
export function cleanUpServiceProcesses(): void {
  for (const child of running) killGroup(child, 'SIGKILL');
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Sends `signal` to `child` and its descendants (it leads its own process group), if it still runs. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/** Where {@link sharedBuild} keeps its builds, one a state of the sources. */
const BUILDS = join(tmpdir(), 'blog-service-e2e-builds');

/** A hash of what tsc's output depends on: src/, the two tsconfigs and package-lock.json (the types it compiles against). */
function sourcesHash(): string {
  const hash = createHash('sha256');
  const files = [
    ...readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name))),
    'tsconfig.json',
    'tsconfig.build.json',
    'package-lock.json',
  ].sort();
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/**
 * The service compiled with the build's tsconfig (what `nest build` runs) once for every spec file and jest run on
 * this machine while src/ stays the same: the first caller compiles it under a lock, the others wait and reuse it.
 * @returns the build's directory (what `dist/` holds), which callers copy and never change.
 * @throws when tsc fails, with its output.
 */
async function sharedBuild(): Promise<string> {
  const dir = join(BUILDS, sourcesHash());
  if (existsSync(join(dir, 'main.js'))) return dir;
  mkdirSync(BUILDS, { recursive: true });
  const release = await lock(dir, {
    realpath: false,
    stale: 30_000,
    retries: { retries: Math.ceil(patience(300_000) / 1_000), minTimeout: 1_000, maxTimeout: 1_000 },
  });
  try {
    if (existsSync(join(dir, 'main.js'))) return dir;
    const partial = `${dir}.partial-${process.pid}`;
    rmSync(partial, { recursive: true, force: true });
    const child = spawn(process.execPath, scratchBuildArguments(partial), {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((done) => child.on('close', done));
    if (code !== 0) throw new Error(`tsc failed (${code}): ${output}`);
    renameSync(partial, dir);
    return dir;
  } finally {
    await release();
  }
}

/**
 * A copy of the service's build (as `npm run build` makes it, from {@link sharedBuild}) at `outDir`.
 * @throws when tsc fails, with its output.
 */
export async function copyBuild(outDir: string): Promise<void> {
  cpSync(await sharedBuild(), outDir, { recursive: true });
}

/**
 * The service's build ({@link copyBuild}) in a scratch directory beside links to the repository's node_modules and
 * package.json (whose `engines` the service reads).
 *
 * @returns the path of the compiled `main.js`.
 */
export async function buildService(): Promise<string> {
  const app = scratchDir();
  const outDir = join(app, 'dist');
  await copyBuild(outDir);
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  symlinkSync(join(ROOT, 'package.json'), join(app, 'package.json'));
  return join(outDir, 'main.js');
}

/**
 * Builds the service once for the calling spec file (`beforeAll`) and kills what it started (`afterAll`).
 * @returns a holder whose `mainJs` is the compiled `main.js` from `beforeAll` on.
 */
export function useBuiltService(): { readonly mainJs: string } {
  let mainJs: string | undefined;
  beforeAll(async () => {
    mainJs = await buildService();
  }, patience(300_000)); // another file's build may be under way
  afterAll(() => cleanUpServiceProcesses());
  return {
    get mainJs(): string {
      if (mainJs === undefined) throw new Error('the service is built in beforeAll');
      return mainJs;
    },
  };
}

/**
 * Node arguments that compile the service as `npm run build` does into `outDir`, build info included:
 * with the build's own `tsBuildInfoFile`, `npm start` would later take ./dist for up to date.
 */
function scratchBuildArguments(outDir: string): string[] {
  const buildInfo = join(outDir, 'tsconfig.build.tsbuildinfo');
  return [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir, '--tsBuildInfoFile', buildInfo];
}

/** A TCP port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', () => done()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * Whether a process of the process group `group` listens on TCP `port` of this host, from Linux's /proc (true where
 * there is none): another spec's service may have taken the port that {@link freePort} gave, and then answers there.
 */
function groupListensOn(group: number, port: number): boolean {
  const tables = ['/proc/net/tcp', '/proc/net/tcp6'].filter((table) => existsSync(table));
  if (tables.length === 0) return true;
  const local = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  // Columns: sl, local_address, rem_address, st (0A: LISTEN), …, inode (the tenth).
  const sockets = new Set(
    tables
      .flatMap((table) => readFileSync(table, 'utf8').trim().split('\n').slice(1))
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1].endsWith(local) && fields[3] === '0A')
      .map((fields) => `socket:[${fields[9]}]`),
  );
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid))
    .some((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        // After the command's closing parenthesis: state, ppid, pgrp.
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== group) return false;
        return readdirSync(`/proc/${pid}/fd`).some((fd) => sockets.has(readlinkSync(`/proc/${pid}/fd/${fd}`)));
      } catch {
        return false; // ended meanwhile
      }
    });
}

/** How a service process ended. */
interface ServiceExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** When it ended (`Date.now()`). */
  readonly at: number;
}

/** One HTTP exchange: the status (or the error that ended it) and when it started and ended. */
export interface Exchange {
  readonly status?: number;
  readonly headers?: IncomingHttpHeaders;
  readonly text: string;
  /** The client error (`ECONNREFUSED`, `ECONNRESET`, `timeout`…) when no response came. */
  readonly error?: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

/** Options of {@link ServiceProcess.request}. */
interface RequestOptions {
  readonly method?: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly agent?: Agent;
  /** The client gives up after this many ms and reports `timeout` (default 15 s: a hang). */
  readonly timeoutMs?: number;
}

/** The service running as `node dist/main.js` on a port of its own. */
export class ServiceProcess {
  private log = '';
  /** Resolves when the process has ended. */
  readonly exited: Promise<ServiceExit>;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    cwd: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.log += chunk.toString()));
    this.exited = new Promise((done) =>
      child.on('exit', (code, signal) => {
        running.delete(child);
        rmSync(cwd, { recursive: true, force: true });
        done({ code, signal, at: Date.now() });
      }),
    );
  }

  /**
   * Starts `node <mainJs>` from a scratch directory (no `.env` near; removed when it ends) with exactly `vars` (plus
   * `PORT`, a free port, unless given, and `RATE_LIMIT_ENABLED=false` unless given) on top of the
   * runner's environment stripped of every service variable; with `node` (the runner's node unless given).
   */
  static async start(
    mainJs: string,
    vars: Record<string, string | undefined>,
    node = process.execPath,
  ): Promise<ServiceProcess> {
    const port = vars.PORT === undefined ? await freePort() : Number(vars.PORT);
    // These tests put load on the service from one address and one token: the abuse limits
    // (test/abuse-limits.e2e-spec.ts) would answer part of it 429, so they are off unless asked for.
    const env = childEnvironment({ RATE_LIMIT_ENABLED: 'false', ...vars, PORT: String(port) });
    const cwd = scratchDir();
    const child = spawn(node, [mainJs], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    return new ServiceProcess(child, port, cwd);
  }

  /** Everything the process wrote to stdout and stderr so far, without colour codes. */
  output(): string {
    // ANSI colour sequences (ESC [ … m) of Nest's logger.
    return this.log.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Sends `signal` to the process. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** Kills the process (and anything it started) if it still runs. */
  kill(): void {
    killGroup(this.child, 'SIGKILL');
  }

  /**
   * Polls `GET /health/live` until 200 from this process (its process group listens on the port).
   * @throws when the process exits or {@link patience}(`ms`) passes first, with its output.
   */
  async waitUntilLive(ms = 90_000): Promise<void> {
    const deadline = Date.now() + patience(ms);
    while (Date.now() < deadline && this.running) {
      const live = await this.request({ path: '/health/live', timeoutMs: 2_000 });
      if (live.status === 200 && this.child.pid !== undefined && groupListensOn(this.child.pid, this.port)) return;
      await new Promise((done) => setTimeout(done, 100));
    }
    throw new Error(`the service did not become live (running: ${this.running}):\n${this.output()}`);
  }

  /** One HTTP request to the service on 127.0.0.1; never rejects (errors are reported in the result). */
  request(options: RequestOptions): Promise<Exchange> {
    const startedAt = Date.now();
    return new Promise((done) => {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      const headers: Record<string, string> = { ...options.headers };
      if (payload !== undefined) headers['Content-Type'] = 'application/json';
      let settled = false;
      const finish = (result: Omit<Exchange, 'startedAt' | 'endedAt'>): void => {
        if (settled) return;
        settled = true;
        done({ ...result, startedAt, endedAt: Date.now() });
      };
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: this.port,
          method: options.method ?? 'GET',
          path: options.path,
          headers,
          agent: options.agent,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => finish({ status: res.statusCode, headers: res.headers, text }));
          res.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message, text }));
        },
      );
      req.setTimeout(options.timeoutMs ?? 15_000, () =>
        req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })),
      );
      req.on('error', (error: NodeJS.ErrnoException) => finish({ error: error.code ?? error.message, text: '' }));
      req.end(payload);
    });
  }
}

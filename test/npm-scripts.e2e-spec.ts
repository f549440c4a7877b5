import { ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, resolve } from 'node:path';
import { verify } from 'jsonwebtoken';
import { sleep } from './support/blog-api';
import {
  childEnvironment,
  cleanUpServiceProcesses,
  copyBuild,
  freePort,
  killGroup,
  scratchDir,
} from './support/service-process';
import { patience } from './support/patience';
import { useTestDatabases } from './support/test-database';

// The package scripts a user runs, as real processes in a scratch copy of the repository (the real
// package.json, nest-cli.json, tsconfigs, scripts/ and src/, a copy of the build (copyBuild), node_modules linked): a
// signal to the npm process of a start script stops the server too, and `npm run token` runs the
// built script (building it first when there is none), not a TypeScript loader.

const ROOT = resolve(__dirname, '..');
const SECRET = 'npm-scripts-e2e-secret-0123456789abcdefghijklmn';

// A build (copyBuild's first, start:dev's, the token command's) on a loaded machine takes minutes.
jest.setTimeout(patience(300_000));

const children = new Set<ChildProcess>();
let app: string;

/** `npm run -s <script> [-- args]` in `cwd`, in a process group of its own, with exactly `vars` configured. */
function npmRun(cwd: string, script: string, args: readonly string[], vars: Record<string, string>): ChildProcess {
  const child = spawn('npm', ['run', '-s', script, ...(args.length > 0 ? ['--', ...args] : [])], {
    cwd,
    env: childEnvironment(vars),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Waits for `child` to end; its exit code and everything it wrote. */
function finished(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code) => done({ code, stdout, stderr })));
}

/** The status of `GET /health/live` on 127.0.0.1:`port`, or the error code (`ECONNREFUSED`…). */
function live(port: number): Promise<number | string> {
  return new Promise((done) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/health/live', timeout: 5_000 }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' })));
    req.on('error', (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    req.end();
  });
}

/** Whether any process of process group `pgid` is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Polls every 250 ms until `condition` holds or {@link patience}(`ms`) passes; returns its last value. */
async function eventually(condition: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + patience(ms);
  for (;;) {
    if (await condition()) return true;
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
}

beforeAll(async () => {
  app = scratchDir();
  for (const file of ['package.json', 'nest-cli.json', 'tsconfig.json', 'tsconfig.build.json'])
    copyFileSync(join(ROOT, file), join(app, file));
  for (const dir of ['src', 'scripts']) cpSync(join(ROOT, dir), join(app, dir), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
  await copyBuild(join(app, 'dist'));
});

// The servers start on a migrated database of the run's engine (no initdb, no migrations at start-up).
const databases = useTestDatabases();

afterAll(() => {
  for (const child of children) killGroup(child, 'SIGKILL');
  cleanUpServiceProcesses();
});

describe('npm run token: the built dist/cli/mint-token.js', () => {
  it('runs from a build alone (package.json, dist/, node_modules; no src/, no tsconfig): a JWT signed with JWT_SECRET for --sub', async () => {
    const built = scratchDir();
    copyFileSync(join(app, 'package.json'), join(built, 'package.json'));
    cpSync(join(app, 'dist'), join(built, 'dist'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(built, 'node_modules'), 'dir');

    const exit = await finished(npmRun(built, 'token', ['--sub', 'alice'], { JWT_SECRET: SECRET }));

    expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: '' });
    expect(verify(exit.stdout.trim(), SECRET, { algorithms: ['HS256'] })).toMatchObject({ sub: 'alice' });
  });

  it('without a build it builds first (as `npm start` does), then prints the token', async () => {
    const fresh = scratchDir();
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
      copyFileSync(join(app, file), join(fresh, file));
    cpSync(join(app, 'src'), join(fresh, 'src'), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules'), join(fresh, 'node_modules'), 'dir');

    const exit = await finished(npmRun(fresh, 'token', ['--sub', 'bob'], { JWT_SECRET: SECRET }));

    expect({ code: exit.code, stderr: exit.stderr }).toEqual({ code: 0, stderr: '' });
    expect(verify(exit.stdout.trim(), SECRET, { algorithms: ['HS256'] })).toMatchObject({ sub: 'bob' });
    expect(existsSync(join(fresh, 'dist', 'cli', 'mint-token.js'))).toBe(true);
  });
});

describe('a signal to the npm process of a start script stops the server (no orphan keeps the port)', () => {
  // npm passes SIGTERM and SIGINT on to the script's shell; only a shell that `exec`s the server
  // hands them to it (and `nest start --watch` passes them on only to a child it spawns without a shell).
  // In table order: start:dev rebuilds the scratch dist/ that start:prod runs.
  it.each([
    ['start:prod', 'SIGTERM'],
    ['start:prod', 'SIGINT'],
    ['start:dev', 'SIGTERM'],
  ] as const)(
    'npm run %s, then %s to npm alone: npm exits, the port is free, no process of the group is left',
    async (script, signal) => {
      const port = await freePort();
      const { env } = await databases.create();
      const npm = npmRun(app, script, [], { PORT: String(port), JWT_SECRET: SECRET, ...env });
      // 'exit', not 'close': a server left behind would hold npm's stdout open.
      const exited = new Promise((done) => npm.on('exit', done));
      try {
        expect(await eventually(async () => (await live(port)) === 200 || npm.exitCode !== null, 180_000)).toBe(true);
        expect({ live: await live(port), running: npm.exitCode === null }).toEqual({ live: 200, running: true });

        npm.kill(signal); // npm alone, as `kill <pid>` does
        await exited;

        expect(await eventually(() => !groupAlive(npm.pid as number), 30_000)).toBe(true);
        expect(await live(port)).toBe('ECONNREFUSED');
      } finally {
        if (groupAlive(npm.pid as number)) process.kill(-(npm.pid as number), 'SIGKILL'); // an orphan too
      }
    },
  );
});

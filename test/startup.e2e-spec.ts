import { ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { AddressInfo, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { verify } from 'jsonwebtoken';
import {
  childEnvironment,
  cleanUpServiceProcesses,
  copyBuild,
  killGroup,
  scratchDir,
  ServiceProcess,
} from './support/service-process';
import { patience } from './support/patience';
import { useTestDatabases } from './support/test-database';

// Configuration: a bad value stops start-up with one clear line naming the
// variable; JWT_SECRET is required in production. And the token command shipped for development
// and tests (`npm run token -- --sub alice`). Real processes are spawned: the service built once for the file (what
// `npm run build` makes, in a scratch directory) and started with `node dist/main.js` from a scratch directory that has
// no `.env`; `npm run start:prod` on that build; the TypeORM CLI (`ormconfig.ts`) through `npm run migration:show`.

const ROOT = resolve(__dirname, '..');
const SECRET = 'startup-e2e-secret-0123456789abcdefghijklmnopqrst';
const PROCESS_TIMEOUT_MS = patience(45_000);

// Each test starts processes (a first PGlite initialisation, npm): minutes on a busy machine.
jest.setTimeout(patience(180_000));

const children = new Set<ChildProcess>();

interface Exit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

function start(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Runs a command to its end (killed after `timeoutMs`) and collects its output. */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<Exit> {
  const started = Date.now();
  const child = start(command, args, options);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, 'SIGKILL');
  }, options.timeoutMs ?? PROCESS_TIMEOUT_MS);
  return new Promise((resolvePromise, reject) => {
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, timedOut, stdout, stderr, ms: Date.now() - started });
    });
  });
}

// A scratch copy of what `npm run build` makes, so the file neither needs nor disturbs ./dist (and no `.env` is near):
// `dist/` compiled with the build's tsconfig (what `nest build` runs; copyBuild), the real package.json (its `start:prod` script is
// under test) and node_modules.
let app: string;

beforeAll(async () => {
  app = scratchDir();
  await copyBuild(join(app, 'dist'));
  copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(app, 'node_modules'), 'dir');
}, patience(300_000)); // another file's build may be under way

/** `node dist/main.js` of the scratch build, from a scratch directory, with exactly `vars` configured. */
function startService(vars: Record<string, string | undefined>): ChildProcess {
  return start(process.execPath, [join(app, 'dist', 'main.js')], { cwd: scratchDir(), env: childEnvironment(vars) });
}

/** Runs the built service from a scratch directory with exactly `vars` configured, to its end. */
function runService(vars: Record<string, string | undefined>, timeoutMs?: number): Promise<Exit> {
  return run(process.execPath, [join(app, 'dist', 'main.js')], {
    cwd: scratchDir(),
    env: childEnvironment(vars),
    timeoutMs,
  });
}

/** `stderr` without npm's own notices, which depend on the machine's npm configuration. */
function ownStderr(exit: Exit): string {
  return exit.stderr
    .split('\n')
    .filter((line) => !/^npm (warn|notice)\b/i.test(line))
    .join('\n')
    .trim();
}

/** `npm run token -- …args` in the repository (npm runs scripts from the package directory). */
function runTokenCommand(args: readonly string[], vars: Record<string, string | undefined>): Promise<Exit> {
  return run('npm', ['run', 'token', '--', ...args], { cwd: ROOT, env: childEnvironment(vars) });
}

/** `npm run -s <script>` in the repository (silent: npm adds no lines of its own to the output). */
function runNpmScript(script: string, vars: Record<string, string | undefined>, timeoutMs?: number): Promise<Exit> {
  return run('npm', ['run', '-s', script], { cwd: ROOT, env: childEnvironment(vars), timeoutMs });
}

/** A TCP port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolveListen) => server.listen(0, '127.0.0.1', () => resolveListen()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolveClose) => server.close(() => resolveClose()));
  return port;
}

/** One HTTP request to the spawned service on `host` (127.0.0.1 unless given). */
function httpCall(
  port: number,
  method: string,
  path: string,
  body?: object,
  authorization?: string,
  host = '127.0.0.1',
): Promise<{ status?: number; text: string }> {
  return new Promise((resolveCall, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = {};
    if (payload !== undefined) headers['Content-Type'] = 'application/json';
    if (authorization !== undefined) headers.Authorization = authorization;
    const req = httpRequest({ host, port, method, path, headers, timeout: 5_000 }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolveCall({ status: res.statusCode, text }));
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Everything `child` writes to stdout and stderr from now on, read through the returned function. */
function collectOutput(child: ChildProcess): () => string {
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return () => output;
}

/** `output()` once it contains `text` or 10 s have passed (asynchronous log lines), for the assertion to judge. */
async function outputOnce(output: () => string, text: string): Promise<string> {
  for (let tries = 0; tries < 200 && !output().includes(text); tries += 1) await new Promise((r) => setTimeout(r, 50));
  return output();
}

/** Polls `GET /health/live` until 200, the child exits, or patience(90 s) passes; returns the last status. */
async function waitUntilLive(child: ChildProcess, port: number): Promise<number | undefined> {
  const deadline = Date.now() + patience(90_000);
  let live: number | undefined;
  while (Date.now() < deadline && child.exitCode === null) {
    live = (await httpCall(port, 'GET', '/health/live').catch(() => undefined))?.status;
    if (live === 200) break;
    await new Promise((resolveWait) => setTimeout(resolveWait, 250));
  }
  return live;
}

const nonEmptyLines = (text: string): string[] => text.split(/\r?\n/).filter((line) => line.trim() !== '');

/** The last line of stdout that looks like a compact JWS (npm prints its own header lines first). */
function jwtIn(stdout: string): string | undefined {
  return nonEmptyLines(stdout)
    .map((line) => line.trim())
    .reverse()
    .find((line) => /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(line));
}

const decodePart = (jwt: string, index: number): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[index], 'base64url').toString('utf8')) as Record<string, unknown>;

afterAll(() => {
  for (const child of children) killGroup(child, 'SIGKILL');
  cleanUpServiceProcesses();
});

// The services that start, and `npm run migration:show`, use a migrated database of the run's engine.
const databases = useTestDatabases();

describe('start-up with a bad configuration', () => {
  /** A configuration the service accepts; each case spoils one variable. */
  const valid = (): Record<string, string> => ({
    NODE_ENV: 'test',
    PORT: '0',
    JWT_SECRET: SECRET,
    DATA_DIR: scratchDir(),
  });

  const cases: readonly { name: string; spoil: Record<string, string | undefined>; variable: string }[] = [
    { name: 'PORT=abc', spoil: { PORT: 'abc' }, variable: 'PORT' },
    { name: 'PORT=70000', spoil: { PORT: '70000' }, variable: 'PORT' },
    { name: 'PORT=-1', spoil: { PORT: '-1' }, variable: 'PORT' },
    { name: 'SHUTDOWN_TIMEOUT_MS=10s', spoil: { SHUTDOWN_TIMEOUT_MS: '10s' }, variable: 'SHUTDOWN_TIMEOUT_MS' },
    { name: 'READS_REQUIRE_AUTH=maybe', spoil: { READS_REQUIRE_AUTH: 'maybe' }, variable: 'READS_REQUIRE_AUTH' },
    { name: 'LOG_LEVEL=verbose', spoil: { LOG_LEVEL: 'verbose' }, variable: 'LOG_LEVEL' },
    { name: 'DATABASE_URL=mysql://x', spoil: { DATABASE_URL: 'mysql://x' }, variable: 'DATABASE_URL' },
    { name: 'JWT_SECRET too short (16 bytes)', spoil: { JWT_SECRET: 'only-16-bytes-xx' }, variable: 'JWT_SECRET' },
    { name: 'JWT_SECRET of 31 bytes', spoil: { JWT_SECRET: 'x'.repeat(31) }, variable: 'JWT_SECRET' },
    {
      name: 'NODE_ENV=production without JWT_SECRET',
      spoil: { NODE_ENV: 'production', JWT_SECRET: undefined },
      variable: 'JWT_SECRET',
    },
    { name: 'CURSOR_SECRET of 31 bytes', spoil: { CURSOR_SECRET: 'x'.repeat(31) }, variable: 'CURSOR_SECRET' },
    {
      name: 'NODE_ENV=production with JWT_JWKS_URI alone (no key shared by the replicas for list cursors)',
      spoil: { NODE_ENV: 'production', JWT_SECRET: undefined, JWT_JWKS_URI: 'https://idp.example/jwks.json' },
      variable: 'CURSOR_SECRET',
    },
  ];

  it.each(cases)(
    '$name: start-up stops (exit code ≠ 0) with exactly one line on stderr naming $variable',
    async ({ spoil, variable }) => {
      const exit = await runService({ ...valid(), ...spoil });
      expect(exit.timedOut).toBe(false); // it did not start serving
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      const lines = nonEmptyLines(exit.stderr);
      expect(lines).toEqual([expect.stringContaining(variable)]);
      expect(lines[0]).not.toMatch(/\bat .+:\d+/); // no stack frame
    },
  );

  // Before the application's modules load: the line comes at once however busy the host, and nothing is built.
  it.each([
    ['in the environment', { LOG_LEVEL: 'verbose' }, ''],
    ['in .env (read unless NODE_ENV=test)', { NODE_ENV: 'development' }, 'LOG_LEVEL=verbose\n'],
  ])('a bad setting %s is refused before AppModule loads', async (_where, spoil, envFile) => {
    const cwd = scratchDir();
    if (envFile !== '') writeFileSync(join(cwd, '.env'), envFile);
    const loadedFile = join(cwd, 'loaded.json');
    const preload = join(__dirname, 'support', 'loaded-modules.cjs');

    const exit = await run(process.execPath, ['--require', preload, join(app, 'dist', 'main.js')], {
      cwd,
      env: childEnvironment({ ...valid(), ...spoil, LOADED_MODULES_FILE: loadedFile }),
    });

    expect(exit.code).not.toBe(0);
    expect(nonEmptyLines(exit.stderr)).toEqual([expect.stringContaining('LOG_LEVEL')]);
    const loaded = JSON.parse(readFileSync(loadedFile, 'utf8')) as string[];
    expect(loaded).toContain(join(app, 'dist', 'config', 'configuration.js'));
    expect(loaded).not.toContain(join(app, 'dist', 'app.module.js'));
  });

  it('an unreachable database: start-up stops with one line naming host:port/database and what to check, no password, no stack', async () => {
    const port = await freePort();

    const exit = await runService({ ...valid(), DATABASE_URL: `postgres://blog:s3cret-pw@127.0.0.1:${port}/blogs` });

    expect(exit.code).not.toBe(0);
    expect(nonEmptyLines(exit.stderr)).toEqual([
      `Cannot connect to PostgreSQL at 127.0.0.1:${port}/blogs (connect ECONNREFUSED 127.0.0.1:${port}): ` +
        'check DATABASE_URL and that the server accepts connections',
    ]);
    expect(exit.stdout).toBe('');
  });

  it("a port another server answers on: the tests' wait for the service to be live does not take that server's answers", async () => {
    const other = createHttpServer((_request, response) => response.end('{}'));
    await new Promise<void>((resolveListen) => other.listen(0, '127.0.0.1', () => resolveListen()));
    const { port } = other.address() as AddressInfo;
    const service = await ServiceProcess.start(join(app, 'dist', 'main.js'), { ...valid(), PORT: String(port) });
    try {
      await expect(service.waitUntilLive()).rejects.toThrow('the service did not become live (running: false)');
      expect(service.output()).toContain('EADDRINUSE');
    } finally {
      service.kill();
      await new Promise((resolveClose) => other.close(resolveClose));
    }
  });

  it('a port in use: start-up stops with one line naming PORT and the address, before the database is set up', async () => {
    const taken = createServer();
    await new Promise<void>((resolveListen) => taken.listen(0, '127.0.0.1', () => resolveListen()));
    const { port } = taken.address() as AddressInfo;
    const dataDir = join(scratchDir(), 'data');
    try {
      const exit = await runService({ ...valid(), PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' });

      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(nonEmptyLines(exit.stderr)).toEqual([
        `Cannot listen on 127.0.0.1:${port} (HOST=127.0.0.1, PORT=${port}): EADDRINUSE, another process listens there: ` +
          'set PORT to a free port, or stop that process',
      ]);
      expect(exit.stdout).toBe('');
      expect(existsSync(dataDir)).toBe(false); // no embedded database was made
    } finally {
      taken.close();
    }
  });

  it('HOST=192.0.2.1 (not an address of this machine): one line naming HOST and the address', async () => {
    const exit = await runService({ ...valid(), HOST: '192.0.2.1' });

    expect(exit.code).not.toBe(0);
    expect(nonEmptyLines(exit.stderr)).toEqual([
      expect.stringMatching(
        /^Cannot listen on 192\.0\.2\.1:0 \(HOST=192\.0\.2\.1, PORT=0\): EADDRNOTAVAIL, .*check HOST$/,
      ),
    ]);
    expect(exit.stdout).toBe('');
  });

  it.each([
    { label: 'unset', host: undefined, serves: '127.0.0.1', refuses: '127.0.0.2' },
    { label: '127.0.0.2', host: '127.0.0.2', serves: '127.0.0.2', refuses: '127.0.0.1' },
  ])(
    'development, HOST $label: listens on $serves only, logs that address and a token without the admin scope',
    async ({ host, serves, refuses }) => {
      const port = await freePort();
      const { env } = await databases.create();
      const child = startService({ NODE_ENV: 'development', HOST: host, PORT: String(port), ...env });
      const output = collectOutput(child);
      try {
        let live: number | undefined;
        for (let tries = 0; tries < 360 && live !== 200 && child.exitCode === null; tries += 1) {
          live = (await httpCall(port, 'GET', '/health/live', undefined, undefined, serves).catch(() => undefined))
            ?.status;
          if (live !== 200) await new Promise((resolveWait) => setTimeout(resolveWait, 250));
        }
        expect({ live, output: live === 200 ? '' : output() }).toEqual({ live: 200, output: '' });
        await expect(httpCall(port, 'GET', '/health/live', undefined, undefined, refuses)).rejects.toThrow(
          /ECONNREFUSED/,
        );
        // Logs are written asynchronously: the port can answer before the line is out.
        expect(await outputOnce(output, `Listening on http://${serves}:${port}`)).toContain(
          `Listening on http://${serves}:${port}`,
        );
        expect(output()).not.toContain('/api/health'); // the health routes are served at /health/*

        const token = /\beyJ[\w-]+\.[\w-]+\.[\w-]+/.exec(output())?.[0] ?? '';
        expect(decodePart(token, 1)).toEqual({ sub: 'dev', iat: expect.any(Number), exp: expect.any(Number) });
        const created = await httpCall(
          port,
          'POST',
          '/api/v1/blogs',
          { title: 't', content: 'c', author: 'a' },
          `Bearer ${token}`,
          serves,
        );
        expect(created.status).toBe(201);
      } finally {
        killGroup(child, 'SIGTERM');
      }
    },
  );

  it('a valid configuration starts (control case): the service serves /health/live and accepts a token from `npm run token`', async () => {
    const port = await freePort();
    const { env } = await databases.create();
    const child = startService({ NODE_ENV: 'test', PORT: String(port), JWT_SECRET: SECRET, ...env });
    const output = collectOutput(child);
    try {
      const live = await waitUntilLive(child, port);
      expect({ live, exitCode: child.exitCode, output: live === 200 ? '' : output() }).toEqual({
        live: 200,
        exitCode: null,
        output: '',
      });

      const minted = await runTokenCommand(['--sub', 'alice'], { NODE_ENV: 'test', JWT_SECRET: SECRET });
      const token = jwtIn(minted.stdout) as string;
      const created = await httpCall(
        port,
        'POST',
        '/api/v1/blogs',
        { title: 't', content: 'c', author: 'a' },
        `Bearer ${token}`,
      );
      expect(created.status).toBe(201);
    } finally {
      killGroup(child, 'SIGTERM');
    }
  });
});

describe('npm run start:prod (the built service, production mode)', () => {
  /** `npm run -s start:prod` in the scratch build with exactly `vars` configured (no NODE_ENV). */
  function startProd(vars: Record<string, string | undefined>): ChildProcess {
    return start('npm', ['run', '-s', 'start:prod'], { cwd: app, env: childEnvironment(vars) });
  }

  it('without NODE_ENV and JWT_SECRET it runs in production mode: exits ≠ 0 with one line naming JWT_SECRET, logs no token', async () => {
    const exit = await run('npm', ['run', '-s', 'start:prod'], {
      cwd: app,
      env: childEnvironment({ PORT: '0', DATA_DIR: scratchDir() }),
    });

    // In development mode it would have made a secret, logged a token and kept serving.
    expect(exit.timedOut).toBe(false);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(nonEmptyLines(exit.stderr)).toEqual([
      'Invalid configuration: JWT_SECRET is required when NODE_ENV=production',
    ]);
    expect(exit.stdout).not.toMatch(/token/i);
  });

  it('with JWT_SECRET it starts and serves /health/live (control case: the script runs the build); its logs are JSON lines, one per request', async () => {
    const port = await freePort();
    const { env, kind } = await databases.create();
    const child = startProd({ PORT: String(port), JWT_SECRET: SECRET, ...env });
    const output = collectOutput(child);
    try {
      const live = await waitUntilLive(child, port);
      expect({ live, exitCode: child.exitCode, output: live === 200 ? '' : output() }).toEqual({
        live: 200,
        exitCode: null,
        output: '',
      });
      expect(output()).not.toMatch(/token/i);

      // Production logs are JSON lines, one per request (written asynchronously: wait for it).
      await httpCall(port, 'GET', '/health/live?probe=1');
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline && !output().includes('"url":"/health/live"'))
        await new Promise((r) => setTimeout(r, 50));
      const records = nonEmptyLines(output()).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records).toContainEqual(
        expect.objectContaining({
          context: 'Bootstrap',
          msg: `Listening on http://127.0.0.1:${port} (${kind === 'postgres' ? 'PostgreSQL' : `embedded PGlite in ${env.DATA_DIR}`})`,
        }),
      );
      expect(records).toContainEqual(
        expect.objectContaining({
          req: { id: expect.any(String), method: 'GET', url: '/health/live' },
          res: { statusCode: 200 },
          route: '/health/live',
          responseTime: expect.any(Number),
        }),
      );
    } finally {
      killGroup(child, 'SIGTERM');
    }
  });
});

describe('npm start, stopped as the README says (`npm start &`, then `kill $!`)', () => {
  it('one SIGTERM to npm stops the server too: the port is free once npm has exited', async () => {
    const port = await freePort();
    const child = start('npm', ['start'], {
      cwd: ROOT,
      env: childEnvironment({
        NODE_ENV: 'test',
        PORT: String(port),
        JWT_SECRET: SECRET,
        ...(await databases.create()).env,
      }),
    });
    const output = collectOutput(child);
    const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
    try {
      const live = await waitUntilLive(child, port);
      expect({ live, output: live === 200 ? '' : output() }).toEqual({ live: 200, output: '' });

      child.kill('SIGTERM'); // npm alone, as `kill $!` does
      await exited;

      await expect(httpCall(port, 'GET', '/health/live')).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      killGroup(child, 'SIGKILL');
    }
  });
});

describe('the TypeORM CLI (ormconfig.ts) reads only the database variables', () => {
  beforeAll(() => {
    // `npm run` runs in the package directory, where ormconfig.ts would read a `.env`.
    if (existsSync(join(ROOT, '.env')))
      throw new Error(`${ROOT}/.env exists: the CLI tests need a directory without one`);
  });

  it('NODE_ENV=production without JWT_SECRET: `npm run migration:show` works (on a migrated database of the run)', async () => {
    const { env } = await databases.create();
    const exit = await runNpmScript('migration:show', { NODE_ENV: 'production', ...env }, patience(30_000));

    expect({ code: exit.code, timedOut: exit.timedOut, stderr: exit.stderr }).toEqual({
      code: 0,
      timedOut: false,
      stderr: '',
    });
    expect(exit.stdout).toMatch(/\[X\] \d+ CreateBlogs\d+/); // listed as applied
  });

  it('a bad DATABASE_URL stops it (exit ≠ 0) with the message naming DATABASE_URL', async () => {
    const exit = await runNpmScript('migration:show', { NODE_ENV: 'production', DATABASE_URL: 'mysql://x' });

    expect(exit.timedOut).toBe(false);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(exit.stderr).toContain('Invalid configuration: DATABASE_URL must be a postgres:// or postgresql:// URL');
  });
});

describe('the token command (npm run token)', () => {
  beforeAll(() => {
    // `npm run` always runs in the package directory; a .env there would feed JWT_SECRET in.
    if (existsSync(join(ROOT, '.env')))
      throw new Error(`${ROOT}/.env exists: the token command tests need a directory without one`);
  });

  it('with JWT_SECRET set, `-- --sub alice --scope blogs:admin --ttl 1h` prints a JWT for sub alice, scope blogs:admin, exp ≈ now + 3600', async () => {
    const exit = await runTokenCommand(['--sub', 'alice', '--scope', 'blogs:admin', '--ttl', '1h'], {
      NODE_ENV: 'test',
      JWT_SECRET: SECRET,
    });
    expect({ code: exit.code, stderr: ownStderr(exit) }).toEqual({ code: 0, stderr: '' });
    const token = jwtIn(exit.stdout);
    expect(token).toBeDefined();
    const jwt = token as string;
    expect(decodePart(jwt, 0)).toMatchObject({ alg: 'HS256' });
    const payload = decodePart(jwt, 1);
    expect(payload).toMatchObject({ sub: 'alice', scope: 'blogs:admin' });
    expect(typeof payload.exp).toBe('number');
    expect(Math.abs((payload.exp as number) - (Math.floor(Date.now() / 1000) + 3600))).toBeLessThanOrEqual(60);
    // signed with the configured secret, as the service verifies it
    expect(() => verify(jwt, SECRET, { algorithms: ['HS256'] })).not.toThrow();
  });

  it('with JWT_ISSUER and JWT_AUDIENCE configured, the printed token carries them (so the service accepts it)', async () => {
    const exit = await runTokenCommand(['--sub', 'bob'], {
      NODE_ENV: 'test',
      JWT_SECRET: SECRET,
      JWT_ISSUER: 'https://idp.example',
      JWT_AUDIENCE: 'blogs',
    });
    expect(exit.code).toBe(0);
    const token = jwtIn(exit.stdout) as string;
    expect(() =>
      verify(token, SECRET, { algorithms: ['HS256'], issuer: 'https://idp.example', audience: 'blogs' }),
    ).not.toThrow();
    expect(decodePart(token, 1)).toMatchObject({ sub: 'bob' });
  });

  it('without --sub it exits non-zero and prints the usage', async () => {
    const exit = await runTokenCommand(['--scope', 'blogs:admin'], { NODE_ENV: 'test', JWT_SECRET: SECRET });
    expect(exit.timedOut).toBe(false);
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toMatch(/usage/i);
    expect(exit.stderr).toContain('--sub');
    expect(jwtIn(exit.stdout)).toBeUndefined();
  });

  it('without JWT_SECRET it exits non-zero with a clear message naming JWT_SECRET', async () => {
    const exit = await runTokenCommand(['--sub', 'alice'], { NODE_ENV: 'test' });
    expect(exit.timedOut).toBe(false);
    expect(exit.code).not.toBe(0);
    expect(exit.stderr).toContain('JWT_SECRET');
    expect(jwtIn(exit.stdout)).toBeUndefined();
  });
});

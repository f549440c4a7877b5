#!/usr/bin/env node
// The typed client as a client team gets it, on the Node.js that runs this script and on each other Node.js binary
// named (packed, installed and type-checked once; the service and the scripts run on each):
//
//   node scripts/client-package-check.mjs [<node binary> …]
//
// 1. its version is the API contract's (openapi.json info.version);
// 2. `npm pack` builds it (prepack) and the tarball is installed into an empty temporary project, which gets
//    openapi-fetch from the tarball's dependencies, not from this repository;
// 3. tsc type-checks, in that project, a script with a misspelt body field in a PATCH and a POST (each must fail, with
//    a message naming the field) and a
//    correct ESM script and CommonJS script (they must compile);
// 4. on each Node.js, both run against the built service (dist/main.js, built when missing) started with that Node.js
//    on a free port of 127.0.0.1 with a fresh embedded database: create → list → patch → delete (ESM), list (CommonJS).
//
// Exit status: 0 all held, 1 otherwise (the failing step's output is printed).

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLIENT = join(ROOT, 'clients', 'typescript');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const { sign } = createRequire(join(ROOT, 'package.json'))('jsonwebtoken');

const work = mkdtempSync(join(tmpdir(), 'blog-client-check-'));
const NODES = [process.execPath, ...process.argv.slice(2)];
let service;

function fail(message) {
  process.stderr.write(`client package: ${message}\n`);
  process.exitCode = 1;
  throw new Error(message);
}

/** Runs a command to its end; returns { code, output }. */
function run(command, args, options = {}) {
  try {
    const output = execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe', ...options });
    return { code: 0, output };
  } catch (error) {
    return { code: error.status ?? 1, output: `${error.stdout ?? ''}${error.stderr ?? ''}` };
  }
}

function mustRun(what, command, args, options) {
  const result = run(command, args, options);
  if (result.code !== 0) fail(`${what} failed (exit ${result.code}):\n${result.output}`);
  return result.output;
}

async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/**
 * Starts the built service with `node` on a fresh embedded database, runs the compiled ESM and CommonJS scripts of
 * `project` against it with the same `node`, and stops it. @returns that node's version
 */
async function runOn(node, project) {
  const port = await freePort();
  const secret = `client-check-${'x'.repeat(40)}`;
  const env = { ...process.env, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port), JWT_SECRET: secret };
  for (const name of ['DATABASE_URL', 'DATABASE_READ_URLS', 'DATABASE_POOLER', 'DATABASE_MIGRATION_URL', 'REDIS_URL'])
    delete env[name];
  Object.assign(env, { DATA_DIR: mkdtempSync(join(work, 'data-')), RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'error' });
  let log = '';
  service = spawn(node, [join(ROOT, 'dist', 'main.js')], { cwd: work, env, stdio: 'pipe' });
  service.stdout.on('data', (chunk) => (log += chunk));
  service.stderr.on('data', (chunk) => (log += chunk));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000; // a fresh embedded database on a loaded machine: tens of seconds
  for (let live = false; !live;) {
    if (service.exitCode !== null) fail(`the service exited (${service.exitCode}) on ${node}:\n${log}`);
    if (Date.now() > deadline) fail(`the service did not become live on ${node}:\n${log}`);
    live = (await fetch(`${url}/health/live`).catch(() => undefined))?.status === 200;
    if (!live) await new Promise((done) => setTimeout(done, 200));
  }
  const flowEnv = {
    ...process.env,
    BLOG_URL: url,
    BLOG_TOKEN: sign({ sub: 'client-check' }, secret, { expiresIn: 600 }),
  };
  process.stdout.write(mustRun('the ESM script', node, ['out/flow.js'], { cwd: project, env: flowEnv }));
  process.stdout.write(mustRun('the CommonJS script', node, ['out/flow-cjs.cjs'], { cwd: project, env: flowEnv }));
  await stopService();
  return mustRun('node --version', node, ['--version']).trim();
}

/** Stops the service started last, if it still runs. */
async function stopService() {
  if (service?.exitCode === null) {
    service.kill('SIGTERM');
    await new Promise((done) => service.once('exit', done));
  }
}

const FLOW = `import { createBlogClient, type Blog } from '@blog-service/client';
declare const process: { env: Record<string, string | undefined> };

const blogs = createBlogClient(process.env.BLOG_URL ?? '', { token: process.env.BLOG_TOKEN });
function check(what: string, status: number, expected: number): void {
  if (status !== expected) throw new Error(\`\${what}: \${status}, expected \${expected}\`);
}
const created = await blogs.POST('/api/v1/blogs', { body: { title: 'Packed', content: 'From the tarball', author: 'Client' } });
check('create', created.response.status, 201);
const blog: Blog = created.data!;
const list = await blogs.GET('/api/v1/blogs', { params: { query: { author: 'Client', limit: 10 } } });
check('list', list.response.status, 200);
if (!list.data?.data.some((item) => item.id === blog.id)) throw new Error('list: the new blog is missing');
const etag = created.response.headers.get('etag') ?? '';
const patched = await blogs.PATCH('/api/v1/blogs/{id}', {
  params: { path: { id: blog.id }, header: { 'If-Match': etag } },
  body: { title: 'Patched' },
});
check('patch', patched.response.status, 200);
if (patched.data?.title !== 'Patched') throw new Error('patch: title not changed');
const deleted = await blogs.DELETE('/api/v1/blogs/{id}', { params: { path: { id: blog.id } } });
check('delete', deleted.response.status, 204);
console.log('esm: create, list, patch, delete');
`;

const FLOW_CJS = `import { createBlogClient } from '@blog-service/client';
declare const process: { env: Record<string, string | undefined>; exitCode?: number };

void createBlogClient(process.env.BLOG_URL ?? '')
  .GET('/api/v1/blogs', { params: { query: { limit: 1 } } })
  .then(({ response }) => {
    if (response.status !== 200) throw new Error(\`list: \${response.status}\`);
    console.log('commonjs: list');
  });
`;

const TYPO = `import { createBlogClient } from '@blog-service/client';

const blogs = createBlogClient('http://127.0.0.1:3000');
export const patched = blogs.PATCH('/api/v1/blogs/{id}', { params: { path: { id: 1 } }, body: { titel: 'x' } });
export const created = blogs.POST('/api/v1/blogs', { body: { title: 'a', content: 'b', author: 'c', titel: 'x' } });
`;

try {
  const pkg = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  const contract = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8')).info.version;
  if (pkg.version !== contract) fail(`version ${pkg.version} is not the API contract's (openapi.json: ${contract})`);

  const [packed] = JSON.parse(
    mustRun('npm pack', 'npm', ['pack', '--json', '--pack-destination', work], { cwd: CLIENT }).replace(/^[^[]*/, ''),
  );
  const tarball = join(work, packed.filename);
  const shipped = packed.files.map((file) => file.path);
  for (const file of ['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/cjs/index.js', 'dist/cjs/index.d.ts'])
    if (!shipped.includes(file)) fail(`the tarball lacks ${file}: ${shipped.join(', ')}`);

  const project = join(work, 'consumer');
  execFileSync('mkdir', [project]);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  mustRun('npm install <tarball>', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
    cwd: project,
  });
  const compilerOptions = {
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: false,
    types: [],
    outDir: 'out',
  };
  writeFileSync(join(project, 'flow.ts'), FLOW);
  writeFileSync(join(project, 'flow-cjs.cts'), FLOW_CJS);
  writeFileSync(join(project, 'typo.ts'), TYPO);
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions, files: ['flow.ts', 'flow-cjs.cts'] }),
  );
  writeFileSync(
    join(project, 'tsconfig.typo.json'),
    JSON.stringify({ compilerOptions: { ...compilerOptions, noEmit: true }, files: ['typo.ts'] }),
  );

  // One error on each line with a misspelt field (PATCH, POST), its message naming the field.
  const typo = run(process.execPath, [TSC, '-p', 'tsconfig.typo.json', '--pretty', 'false'], { cwd: project });
  for (const line of [4, 5])
    if (typo.code === 0 || !new RegExp(`typo\\.ts\\(${line},\\d+\\): error TS\\d+: .*'titel'`).test(typo.output))
      fail(`tsc did not refuse the field titel on line ${line}, naming it (exit ${typo.code}):\n${typo.output}`);
  mustRun('tsc on the correct scripts', process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project });

  if (!existsSync(join(ROOT, 'dist', 'main.js')))
    mustRun('npm run build', 'npm', ['run', '-s', 'build'], { cwd: ROOT });
  const versions = [];
  for (const node of NODES) versions.push(await runOn(node, project));
  process.stdout.write(
    `client package ${pkg.version} on Node ${versions.join(' and ')}: packed, installed, typo refused, ran\n`,
  );
} catch (error) {
  if (process.exitCode !== 1) {
    process.stderr.write(`client package: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  }
} finally {
  await stopService();
  rmSync(work, { recursive: true, force: true });
}

// A varnishd of a spec's or the bench's own, running the shipped deploy/varnish/default.vcl with its `default` backend
// pointed at the service under test. CommonJS, so that both the TypeScript specs and the ES-module bench load it.
const { spawn, execFileSync } = require('node:child_process');
const { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');
const { createServer } = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const SHIPPED_VCL = join(__dirname, '..', '..', 'deploy', 'varnish', 'default.vcl');
const BACKEND_BLOCK = /backend default \{[^}]*\}/;

/** `deploy/varnish/default.vcl` with its `default` backend at `host:port`. */
function vclFor(host, port) {
  const vcl = readFileSync(SHIPPED_VCL, 'utf8');
  if (!BACKEND_BLOCK.test(vcl)) throw new Error(`${SHIPPED_VCL} has no "backend default { … }" block`);
  return vcl.replace(BACKEND_BLOCK, `backend default {\n    .host = "${host}";\n    .port = "${port}";\n}`);
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Whether varnishd is installed (Debian: varnish, varnish-modules). */
function varnishAvailable() {
  try {
    execFileSync('varnishd', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** A fresh directory that varnishd's workers (its own user, when started as root) can read. */
function varnishDir() {
  const dir = mkdtempSync(join(tmpdir(), 'blog-varnish-'));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * Why the shipped VCL cannot run here (varnishd missing, or it cannot compile the VCL, e.g. without the xkey module),
 * or `undefined` when it can. For a spec to skip with the reason.
 */
function varnishUnavailableReason() {
  if (!varnishAvailable()) return 'varnishd is not installed (Debian: apt-get install varnish varnish-modules)';
  const dir = varnishDir();
  try {
    const vcl = join(dir, 'default.vcl');
    writeFileSync(vcl, vclFor('127.0.0.1', 80));
    execFileSync('varnishd', ['-C', '-n', join(dir, 'work'), '-f', vcl], { stdio: ['ignore', 'ignore', 'pipe'] });
    return undefined;
  } catch (error) {
    const message = String(error.stderr ?? error.message).match(/Message from VCC-compiler:\n([^\n]*)/)?.[1];
    return `varnishd cannot compile ${SHIPPED_VCL}: ${message ?? String(error.stderr ?? error.message).trim()}`;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts varnishd in the foreground on 127.0.0.1:`port` (a free one by default) with the shipped VCL in front of
 * `backendHost:backendPort`; resolves once it answers. `stop()` ends it (its cache with it), `start()` starts it again
 * on the same port, `close()` stops it and removes its directory. `env` is added to varnishd's environment (the VCL
 * reads CACHE_PURGE_TOKEN there).
 * @param {{ backendPort: number, backendHost?: string, port?: number, env?: Record<string, string> }} options
 */
async function startVarnish({ backendPort, backendHost = '127.0.0.1', port, env = {} }) {
  if (!varnishAvailable())
    throw new Error('varnishd is not installed (Debian: apt-get install varnish varnish-modules)');
  const listen = port ?? (await freePort());
  // As root, varnishd's workers run as its own user, which must read the VCL and the working directory.
  const dir = varnishDir();
  const vcl = join(dir, 'default.vcl');
  writeFileSync(vcl, vclFor(backendHost, backendPort));
  const url = `http://127.0.0.1:${listen}`;
  let child;
  let output = '';

  async function start() {
    output = '';
    child = spawn(
      'varnishd',
      ['-F', '-n', join(dir, 'work'), '-a', `127.0.0.1:${listen}`, '-f', vcl, '-s', 'malloc,64m', '-T', '127.0.0.1:0'],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CACHE_PURGE_TOKEN: '', ...env } },
    );
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`varnishd exited (${child.exitCode}): ${output.trim()}`);
      try {
        const response = await fetch(`${url}/`, { method: 'PURGE', headers: { 'Surrogate-Key': 'varnish-ready' } });
        if (response.status === 200) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        await exited;
        throw new Error(`varnishd did not answer on ${url} within 30 s: ${output.trim()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function stop(signal = 'SIGTERM') {
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  try {
    await start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port: listen,
    start,
    stop: () => stop('SIGTERM'),
    kill: () => stop('SIGKILL'),
    close: async () => {
      await stop('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

module.exports = { startVarnish, varnishAvailable, varnishUnavailableReason, vclFor, freePort };

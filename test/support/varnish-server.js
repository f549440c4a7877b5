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

/**
 * Starts varnishd in the foreground on 127.0.0.1:`port` (a free one by default) with the shipped VCL in front of
 * `backendHost:backendPort`; resolves once it answers. `stop()` ends it (its cache with it), `start()` starts it again
 * on the same port, `close()` stops it and removes its directory.
 * @param {{ backendPort: number, backendHost?: string, port?: number }} options
 */
async function startVarnish({ backendPort, backendHost = '127.0.0.1', port }) {
  if (!varnishAvailable())
    throw new Error('varnishd is not installed (Debian: apt-get install varnish varnish-modules)');
  const listen = port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'blog-varnish-'));
  // As root, varnishd's workers run as its own user, which must read the VCL and the working directory.
  chmodSync(dir, 0o755);
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
      { stdio: ['ignore', 'pipe', 'pipe'] },
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

  await start();
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

module.exports = { startVarnish, varnishAvailable, vclFor, freePort };

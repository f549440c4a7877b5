// `--against <ref>`: a build of another commit, run by the bench as one more server. The ref is
// checked out with `git worktree add --detach` into a temporary directory outside the repository,
// then `npm ci` (or, when its package-lock.json is the repository's, a link to the repository's node_modules: the same
// install) and `npm run build` run there. The worktree is removed by its `remove()`, which
// the bench calls at the end (also after a failure or a signal), and on process exit.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const git = (cwd, args) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Checks `ref` out next to the repository at `root`, installs and builds it. `children` is the
 * bench's set of live child processes (stopped on a signal); `log` writes one progress line.
 * @returns { dir, sha, short, name, nodeOptions (its Dockerfile's, or ''), remove() }
 * @throws when the ref is unknown, or its install or build fails (the worktree is removed first)
 */
export async function prepareRelease(root, ref, { children, log }) {
  const sha = git(root, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const short = sha.slice(0, 7);
  const dir = mkdtempSync(join(tmpdir(), `blog-bench-release-${short}-`));
  let removed = false;
  const remove = () => {
    if (removed) return;
    removed = true;
    try {
      git(root, ['worktree', 'remove', '--force', dir]);
    } catch {
      // not (or no longer) a worktree
    }
    rmSync(dir, { recursive: true, force: true });
    try {
      git(root, ['worktree', 'prune']);
    } catch {
      // nothing to prune
    }
  };
  process.on('exit', remove);
  try {
    log(`release ${short} (${ref}): git worktree in ${dir}`);
    git(root, ['worktree', 'add', '--detach', dir, sha]);
    if (sameInstall(root, dir)) {
      log(`release ${short}: package-lock.json as in the repository: its node_modules linked`);
      symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir');
    } else {
      log(`release ${short}: npm ci`);
      await run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir, children);
    }
    log(`release ${short}: npm run build`);
    await run('npm', ['run', '-s', 'build'], dir, children);
  } catch (error) {
    remove();
    throw error;
  }
  return { dir, sha, short, name: `release ${short}`, nodeOptions: dockerNodeOptions(dir) ?? '', remove };
}

/** Whether `dir`'s package-lock.json is `root`'s, and `root` has node_modules installed. */
function sameInstall(root, dir) {
  const lock = (at) => readFileSync(join(at, 'package-lock.json'), 'utf8');
  return existsSync(join(root, 'node_modules', '.package-lock.json')) && lock(root) === lock(dir);
}

/** The `NODE_OPTIONS="…"` of the Dockerfile in `dir`, or undefined when it has none. */
export function dockerNodeOptions(dir) {
  try {
    return /^\s*NODE_OPTIONS="([^"]*)"/m.exec(readFileSync(join(dir, 'Dockerfile'), 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

/** Runs `command` in `cwd`, its output on stderr; rejects on a non-zero exit. */
function run(command, args, cwd, children) {
  return new Promise((resolve, reject) => {
    // No NODE_OPTIONS of the bench's caller, no NODE_ENV=production (npm ci would skip the build tools).
    const { NODE_ENV: _env, ...env } = process.env;
    // A process group of its own, stopped as a whole: npm's install scripts and the build are its children.
    const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', process.stderr, process.stderr] });
    child.kill = (signal) => {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
    };
    children.add(child);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      children.delete(child);
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} in ${cwd}: ${code ?? signal}`));
    });
  });
}

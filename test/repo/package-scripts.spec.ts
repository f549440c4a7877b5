import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { satisfies, subset } from 'semver';

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

describe('supported Node.js versions (engines.node)', () => {
  it('every production dependency supports every version the service claims', () => {
    const output = execFileSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
    const refusing = output
      .split('\n')
      .filter((dir) => dir.includes('node_modules'))
      .map((dir) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; engines?: unknown })
      .filter(({ engines }) => {
        const range = (engines as { node?: unknown } | undefined)?.node;
        return typeof range === 'string' && !subset(pkg.engines.node, range);
      })
      .map(({ name }) => name);

    expect(refusing).toEqual([]);
  });

  it.each([22, 24])('CI runs under Node %d, a major engines.node admits', (major) => {
    expect(satisfies(`${major}.99.0`, pkg.engines.node)).toBe(true);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(new RegExp(`npx -y -p node@${major}\\b`));
  });

  it('no major below the lowest is admitted (Node 20 is past its end of life)', () => {
    expect(satisfies('20.99.0', pkg.engines.node)).toBe(false);
  });
});

describe('npm start and start:prod', () => {
  it('npm start compiles only what changed: a second build of unchanged sources writes nothing', () => {
    expect(pkg.scripts.start).toBe('tsc -b tsconfig.build.json && node dist/main.js');
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = (): string =>
      execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', '--verbose'], { cwd: ROOT, encoding: 'utf8' });
    build();
    const built = statSync(join(ROOT, 'dist', 'main.js')).mtimeMs;

    expect(build()).toContain('is up to date');
    expect(statSync(join(ROOT, 'dist', 'main.js')).mtimeMs).toBe(built);
  }, 180_000);

  it("start:prod runs Node with the image's V8 heap bounds", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const imageOptions = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfile)?.[1];

    expect(imageOptions).toMatch(/--max-old-space-size=\d+/);
    expect(pkg.scripts['start:prod']).toBe(`NODE_ENV=production node ${imageOptions} dist/main.js`);
  });
});

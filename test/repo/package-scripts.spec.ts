import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { minVersion, satisfies, subset } from 'semver';
import { isSupportedNode, SUPPORTED_NODE } from '../../src/lifecycle/supported-node';
import { patience } from '../support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(180_000));

// The package scripts' own check (CommonJS, run by node before any build).
const { unsupportedNode } = createRequire(__filename)('../../scripts/require-node.cjs') as {
  unsupportedNode: (version: string, purpose?: 'service' | 'jest') => string | undefined;
};

const ROOT = join(__dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

describe('supported Node.js versions (engines.node)', () => {
  it.each([
    ['production', ['--omit=dev']],
    ['development (npm ci, start:dev, the tests)', []],
  ])('every %s dependency supports every version engines.node claims', (_name, omit) => {
    const output = execFileSync('npm', ['ls', ...omit, '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' });
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

  it('the README states the lowest versions engines.node admits', () => {
    const lowest = pkg.engines.node.split('||').map((part) => minVersion(part)?.version.replace(/\.0$/, ''));
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

    for (const version of lowest.slice(0, 2)) expect(readme).toContain(`Node.js ${version}`);
  });

  it.each([22, 24])('CI runs under Node %d, a major engines.node admits', (major) => {
    expect(satisfies(`${major}.99.0`, pkg.engines.node)).toBe(true);
    expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8')).toMatch(new RegExp(`npx -y -p node@${major}\\b`));
  });

  it('no major below the lowest is admitted (Node 20 is past its end of life)', () => {
    expect(satisfies('20.99.0', pkg.engines.node)).toBe(false);
  });

  const versions = ['18.20.8', '20.19.0', '20.99.0', '22.0.0', '22.13.0', '22.22.2', '22.22.3', '22.23.3', '23.11.0'];
  versions.push('24.0.0', '24.9.0', '24.14.9', '24.15.0', '24.21.0', '25.0.0', '26.1.0');

  it("the service's start-up check (src/lifecycle/supported-node.ts) and scripts/require-node.cjs admit engines.node", () => {
    expect(SUPPORTED_NODE).toBe(pkg.engines.node);
    expect(versions.map((v) => [v, isSupportedNode(v), unsupportedNode(v) === undefined])).toEqual(
      versions.map((v) => [v, satisfies(v, pkg.engines.node), satisfies(v, pkg.engines.node)]),
    );
  });

  it.each(versions)('Node.js %s: the tests run where engines.node admits it and jest loads ES modules (24.9+)', (v) => {
    const refusal = unsupportedNode(v, 'jest');
    const runs = satisfies(v, pkg.engines.node) && satisfies(v, '>=24.9.0');

    expect(refusal === undefined).toBe(runs);
    if (refusal)
      expect(refusal).toMatch(
        new RegExp(`^Node\\.js v${v.replaceAll('.', '\\.')} (is not supported|cannot run the tests): [^\\n]+$`),
      );
  });

  it.each(['start', 'start:dev', 'test', 'test:full', 'test:unit', 'test:e2e', 'test:repo', 'test:fuzz'])(
    '%s checks the Node.js version first, before it builds, watches or loads anything',
    (name) => {
      const purpose = name.startsWith('test') ? ' jest' : '';
      expect(pkg.scripts[name].startsWith(`node scripts/require-node.cjs${purpose} && `)).toBe(true);
    },
  );

  it('CI starts the built service, npm start, start:dev and npm test under Node 20, which must refuse with one line', () => {
    const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/npx -y -p node@20 node dist\/main\.js/);
    expect(ci).toMatch(/refuses_at_once 20 start/);
    expect(ci).toMatch(/refuses_at_once 22 test/);
  });
});

describe('npm start and start:prod', () => {
  it('npm start compiles only what changed: a second build of unchanged sources writes nothing', () => {
    expect(pkg.scripts.start).toBe(
      'node scripts/require-node.cjs && node scripts/prune-dist.mjs && tsc -b tsconfig.build.json && exec node dist/main.js',
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const build = (): string =>
      execFileSync(process.execPath, [tsc, '-b', 'tsconfig.build.json', '--verbose'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
    build();
    const built = statSync(join(ROOT, 'dist', 'main.js')).mtimeMs;

    expect(build()).toContain('is up to date');
    expect(statSync(join(ROOT, 'dist', 'main.js')).mtimeMs).toBe(built);
  });

  it('npm start first deletes the output of sources that moved or went, which tsc -b leaves behind', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prune-dist-'));
    const files = {
      'src/main.ts': '',
      'src/blogs/migrations/1-create.ts': '',
      'dist/main.js': '',
      'dist/main.js.map': '',
      'dist/blogs/migrations/1-create.js': '',
      'dist/database/migrations/1-create.js': '',
      'dist/database/migrations/1-create.js.map': '',
      'dist/tsconfig.build.tsbuildinfo': '',
    };
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }

    execFileSync(process.execPath, [join(ROOT, 'scripts', 'prune-dist.mjs'), 'dist', 'src'], { cwd: dir });
    expect(readdirSync(join(dir, 'dist'), { recursive: true }).sort()).toEqual([
      'blogs',
      join('blogs', 'migrations'),
      join('blogs', 'migrations', '1-create.js'),
      'main.js',
      'main.js.map',
      'tsconfig.build.tsbuildinfo',
    ]);
    rmSync(dir, { recursive: true });
  });

  it("start:prod and the k8s Deployment run Node with the image's V8 heap bounds", () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    const imageOptions = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfile)?.[1];
    const deployment = readFileSync(join(ROOT, 'deploy', 'k8s', 'deployment.yaml'), 'utf8');

    expect(imageOptions).toMatch(/--max-old-space-size=\d+ --max-semi-space-size=\d+/);
    expect(pkg.scripts['start:prod']).toBe(`NODE_ENV=production exec node ${imageOptions} dist/main.js`);
    expect(/- name: NODE_OPTIONS\s+value: '([^']*)'/.exec(deployment)?.[1]).toBe(imageOptions);
  });
});

describe('long-running scripts', () => {
  // npm passes SIGTERM and SIGINT on to the script's shell alone: the process that runs on must be
  // that shell, `exec`ed (test/npm-scripts.e2e-spec.ts sends the signals to real processes).
  it.each([
    'start',
    'start:dev',
    'start:prod',
    'test',
    'test:full',
    'test:unit',
    'test:e2e',
    'test:repo',
    'test:fuzz',
    'bench',
  ])('%s ends by exec-ing its long-running command, so a signal to npm reaches it', (name) => {
    expect(pkg.scripts[name]).toMatch(/(^|&& |; )([A-Z_]+=\S+ )?exec [^;&|]+$/);
  });

  it('start:dev runs the service without a shell between nest and it (nest passes signals on to its child only)', () => {
    expect(pkg.scripts['start:dev']).toBe('node scripts/require-node.cjs && exec nest start --watch --no-shell');
  });

  it('the token command runs the build, not a TypeScript loader', () => {
    expect(pkg.scripts.token).toMatch(/exec node dist\/cli\/mint-token\.js$/);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { preProcessFile } from 'typescript';

// The shared folders of src/ import no feature module (docs/architecture.md, "Adding a module"): a feature brings its
// own events, routes and rules to them through their interfaces, never the other way round.
const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');

/** Top-level folders of src/ that are infrastructure; every other one is a feature (blogs, tags, any new one). */
const INFRASTRUCTURE = new Set([
  'auth',
  'cli',
  'common',
  'config',
  'database',
  'events',
  'health',
  'idempotency',
  'jobs',
  'lifecycle',
  'logging',
  'metrics',
  'openapi',
  'rate-limit',
  'shared-cache',
  'webhooks',
]);

/** The shared folders that every feature may use, so none may depend on a feature. */
const SHARED = ['common', 'config', 'database', 'events', 'openapi', 'shared-cache', 'webhooks'];

const FEATURES = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !INFRASTRUCTURE.has(entry.name))
  .map(({ name }) => name);

/** The TypeScript files under `dir`, recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The module specifiers of `source`: `import`, `export … from`, `import()` and `require()`. */
function specifiersOf(source: string): string[] {
  return preProcessFile(source, true, true).importedFiles.map(({ fileName }) => fileName);
}

/** The top-level folder of src/ that `specifier`, written in the file `path`, names; undefined outside src/. */
function srcFolderOf(path: string, specifier: string): string | undefined {
  let target: string;
  if (specifier.startsWith('.')) target = resolve(dirname(path), specifier);
  else if (specifier === 'src' || specifier.startsWith('src/')) target = join(ROOT, specifier);
  else return undefined;
  const inside = relative(SRC, target);
  if (inside.startsWith('..') || inside === '') return undefined;
  return inside.split(sep)[0];
}

/** `file: specifier` for each import of a feature in the shared folder `folder`. */
function featureImports(folder: string): string[] {
  return sourceFiles(join(SRC, folder)).flatMap((path) =>
    specifiersOf(readFileSync(path, 'utf8'))
      .filter((specifier) => FEATURES.includes(srcFolderOf(path, specifier) ?? ''))
      .map((specifier) => `${relative(ROOT, path)}: ${specifier}`),
  );
}

describe('module boundaries', () => {
  it('tells the features apart from the infrastructure (blogs and tags are features)', () => {
    expect(FEATURES).toEqual(expect.arrayContaining(['blogs', 'tags']));
    expect(FEATURES.filter((name) => SHARED.includes(name))).toEqual([]);
  });

  it('reads every form of import, relative paths and src/ paths alike', () => {
    const source = [
      "import { A } from '../blogs/a';",
      "import type { B } from '../tags/b';",
      "export { C } from 'src/comments/c';",
      "const d = require('../blogs/d');",
      "const e = import('./e');",
      "import '@nestjs/common';",
    ].join('\n');
    const path = join(SRC, 'events', 'x.ts');

    expect(specifiersOf(source).map((specifier) => [specifier, srcFolderOf(path, specifier)])).toEqual([
      ['../blogs/a', 'blogs'],
      ['../tags/b', 'tags'],
      ['src/comments/c', 'comments'],
      ['../blogs/d', 'blogs'],
      ['./e', 'events'],
      ['@nestjs/common', undefined],
    ]);
  });

  it.each(SHARED)('src/%s imports no feature module', (folder) => {
    expect(featureImports(folder)).toEqual([]);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// Which way dependencies between feature modules point (docs/architecture.md, "Layout"): each pair is a module and one
// it must not import, so that the two never form a cycle.
const ROOT = join(__dirname, '..', '..');
const FORBIDDEN: [from: string, to: string][] = [['tags', 'blogs']];

/** The TypeScript files under `dir`, specs included. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files of `src/<from>` that import from `src/<to>`. */
function importing(from: string, to: string): string[] {
  const fromDir = join(ROOT, 'src', from);
  return sources(fromDir).filter((file) =>
    [...readFileSync(file, 'utf8').matchAll(/\bfrom '([^']+)'/g)].some(([, specifier]) => {
      if (!specifier.startsWith('.')) return false;
      const target = relative(join(ROOT, 'src'), join(file, '..', specifier));
      return target === to || target.startsWith(`${to}/`);
    }),
  );
}

describe('imports between feature modules', () => {
  it.each(FORBIDDEN)('src/%s imports nothing from src/%s', (from, to) => {
    expect(importing(from, to).map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('finds an import where there is one (src/blogs imports src/tags)', () => {
    expect(importing('blogs', 'tags').length).toBeGreaterThan(0);
  });
});

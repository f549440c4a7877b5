import { randomUUID } from 'node:crypto';

/**
 * Node's own `import()` of an ES module (`specifier`), which TypeScript's CommonJS output would turn into `require()`:
 * for ESM-only packages, also under jest's module loader (run with `--experimental-vm-modules`).
 */
export function importEsm<T>(specifier: string): Promise<T> {
  // A source of its own on every call: V8 caches compiled code by its source, and a cached function keeps the import
  // callback of the context that compiled it first (under jest, a test file's environment that may be gone).
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the one way to keep a native import() in CommonJS output
  const load = new Function('specifier', `return import(specifier); // ${randomUUID()}`) as (s: string) => Promise<T>;
  return load(specifier);
}

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Plugin {
  areAmbiguous(a: unknown[], b: unknown[]): boolean;
  segmentsOf(path: string, item?: Record<string, unknown>): unknown[];
}

const ROOT = join(__dirname, '..', '..');
const int = (name: string) => ({ get: { parameters: [{ name, in: 'path', schema: { type: 'integer' } }] } });
const str = (name: string, pattern?: string) => ({
  get: { parameters: [{ name, in: 'path', schema: { type: 'string', ...(pattern && { pattern }) } }] },
});

// redocly/no-ambiguous-paths.mjs: Redocly's no-ambiguous-paths, reading the path parameters' schemas.
describe('redocly/no-ambiguous-paths.mjs', () => {
  let plugin: Plugin;
  beforeAll(async () => {
    plugin = (await import(pathToFileURL(join(ROOT, 'redocly', 'no-ambiguous-paths.mjs')).href)) as Plugin;
  });

  it.each<[string, [string, Record<string, unknown>], [string, Record<string, unknown>], boolean]>([
    ['an integer id beside a literal', ['/blogs/{id}/comments', int('id')], ['/blogs/slug/{slug}', str('slug')], false],
    ['a string id beside a literal', ['/blogs/{id}/comments', str('id')], ['/blogs/slug/{slug}', str('slug')], true],
    ['an integer id beside digits', ['/blogs/{id}/x/{y}', int('id')], ['/blogs/7/x/{z}', str('z')], false],
    ['a pattern that admits the literal', ['/a/{k}/b', str('k', '^[a-z]+$')], ['/a/slug/{s}', str('s')], true],
    ['a pattern that refuses it', ['/a/{k}/b', str('k', '^[0-9]+$')], ['/a/slug/{s}', str('s')], false],
    ['two parameters in one place', ['/blogs/{id}', int('id')], ['/blogs/{slug}', str('slug')], true],
    ['fewer parameters: the literal wins', ['/blogs/{id}', int('id')], ['/blogs/7', {}], false],
    ['other lengths', ['/blogs/{id}', int('id')], ['/blogs/{id}/comments', int('id')], false],
    ['other literals', ['/blogs/{id}', int('id')], ['/tags/{id}', int('id')], false],
  ])('%s: ambiguous %s', (_name, [pathA, itemA], [pathB, itemB], ambiguous) => {
    const a = plugin.segmentsOf(pathA, itemA);
    const b = plugin.segmentsOf(pathB, itemB);
    expect([plugin.areAmbiguous(a, b), plugin.areAmbiguous(b, a)]).toEqual([ambiguous, ambiguous]);
  });
});

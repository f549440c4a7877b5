import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Facts of the code that the documentation states in words, checked against the code.
const ROOT = join(__dirname, '..', '..');
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');

describe('documentation facts', () => {
  it('docs/operations.md: the PostgreSQL example creates the database before the service connects to it', () => {
    const block = /^## Running\n+```bash\n([\s\S]*?)```/m.exec(read('docs/operations.md'))?.[1] ?? '';
    const database = /DATABASE_URL=postgres:\/\/[^ ]*\/(\w+) /.exec(block)?.[1];

    expect(database).toBeDefined();
    const created = block.search(new RegExp(`^createdb .*\\b${database}\\b`, 'm'));
    expect(created).toBeGreaterThanOrEqual(0);
    expect(created).toBeLessThan(block.indexOf('DATABASE_URL='));
  });
});

/** The TypeScript files under src/ whose name ends with `suffix`, specs left out. */
const sourcesEndingWith = (suffix: string): string[] =>
  readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith(suffix) && !path.endsWith('.spec.ts'))
    .map((path) => read(join('src', path)));

/** The section of docs/api.md under the heading `## <title>`, up to the next `## `. */
const apiSection = (title: string): string => read('docs/api.md').split(`\n## ${title}\n`)[1]?.split('\n## ')[0] ?? '';

describe('docs/api.md names what the modules register', () => {
  // Each module declares its events and its cache keys; the API description lists them for clients.
  // A provider's types, whether `@EventResource({ types: [...] })` lists them or a `*_EVENT_TYPES = [...]` it names.
  const types = sourcesEndingWith('.ts')
    .filter((source) => source.includes('@EventResource('))
    .flatMap((source) =>
      [...source.matchAll(/(?:_EVENT_TYPES = |\btypes: )\[([^\]]*)\]/g)].flatMap(
        ([, list]) => list.match(/[a-z_]+\.[a-z_]+/g) ?? [],
      ),
    );
  const keys = sourcesEndingWith('-surrogate-keys.ts').flatMap((source) => [
    ...[...source.matchAll(/`([a-z][a-z-]*)-\$\{/g)].map(([, prefix]) => `\`${prefix}-<`),
    ...[...source.matchAll(/_KEY = '([a-z-]+)'/g)].map(([, key]) => `\`${key}\``),
  ]);

  it('finds the event types and keys of blogs and comments', () => {
    expect(types).toEqual(expect.arrayContaining(['blog.created', 'comment.deleted']));
    expect(keys).toEqual(expect.arrayContaining(['`blog-<', '`comments-<', '`comment-<', '`blogs`']));
  });

  it('"Change feed" names every event type', () => {
    const feed = apiSection('Change feed');

    expect(types.filter((type) => !feed.includes(`\`${type}\``))).toEqual([]);
  });

  it('"Caching" names every surrogate key', () => {
    const caching = apiSection('Caching');

    expect(keys.filter((key) => !caching.includes(key))).toEqual([]);
  });
});

describe('the measurements the documentation cites', () => {
  const documents = [
    'README.md',
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
  // `bench/results/<name>`, or `…<time>Z.json` after a `bench/results/<date>T…` of the same document: that date's.
  const cited = documents.flatMap((document) => {
    let day = '';
    return [...read(document).matchAll(/bench\/results\/([\w.-]*\w)|…(\d\d-\d\d-\d\d-\d+Z[\w.-]*\w)/g)].map(
      ([, name, time]) => {
        if (name !== undefined) day = /^\d{4}-\d\d-\d\dT/.exec(name)?.[0] ?? day;
        return `${document}: ${name ?? `${day}${time}`}`;
      },
    );
  });

  it('finds the citations, the short ones with their date', () => {
    expect(cited.length).toBeGreaterThan(20);
    expect(cited).toContainEqual(expect.stringMatching(/^docs\/performance\.md: 2026-11-29T14-20-15-748Z\.json$/));
  });

  it('each is a file of bench/results in the repository', () => {
    const missing = cited.filter((citation) => !existsSync(join(ROOT, 'bench', 'results', citation.split(': ')[1])));

    expect(missing).toEqual([]);
  });
});

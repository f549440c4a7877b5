import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// test/support/spec-sets.js is CommonJS without types.
const { ENGINE_FREE_SPECS, SLOW_SPECS, pragmasOf, specsWithPragma } = jest.requireActual<{
  ENGINE_FREE_SPECS: string[];
  SLOW_SPECS: string[];
  pragmasOf: (source: string) => string[];
  specsWithPragma: (pragma: string) => string[];
}>('../support/spec-sets');

const ROOT = join(__dirname, '..', '..');

describe('spec sets found by convention (test/support/spec-sets.js)', () => {
  it.each<[string, string, string[]]>([
    ['a leading docblock', '/**\n * @pgbouncer-and-replica CI runs it.\n */\nimport x;', ['pgbouncer-and-replica']],
    ['two pragmas on one line', '/** @a @b-c */\n', ['a', 'b-c']],
    ['a docblock after code', "import x from 'y';\n/** @pgbouncer-and-replica */", []],
    ['a line comment', '// @pgbouncer-and-replica\n', []],
    ['an address, not a pragma', '/** mail me@example.org */', []],
  ])('pragmasOf reads %s', (_name, source, pragmas) => {
    expect(pragmasOf(source)).toEqual(pragmas);
  });

  describe('@pgbouncer-and-replica: the specs of CI’s PgBouncer and replica runs', () => {
    const specs = specsWithPragma('pgbouncer-and-replica');
    const names = specs.map((path) => /^test\/(.+)\.e2e-spec\.ts$/.exec(path)?.[1]);

    it('are e2e spec files under test/, among them the blog and tag specs', () => {
      expect(names).not.toContain(undefined);
      expect(names).toEqual(expect.arrayContaining(['blogs-crud', 'blogs.repository', 'tags', 'tags.repository']));
    });

    it('leave out the slow specs and those that make database clusters of their own', () => {
      expect(names.filter((name) => [...SLOW_SPECS, ...ENGINE_FREE_SPECS].includes(name as string))).toEqual([]);
    });

    it('are what .ci/run passes to its run through PgBouncer with a replica', () => {
      const ci = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');

      expect(ci).toContain('mapfile -t TOPOLOGY_SPECS < <(node test/support/spec-sets.js pgbouncer-and-replica)');
      expect(ci).toMatch(
        /TEST_VIA_PGBOUNCER=1 TEST_WITH_REPLICA=1 jest24 --selectProjects e2e [^\n]*\\\n\s*[^\n]*"\$\{TOPOLOGY_SPECS\[@\]\}"/,
      );
    });
  });
});

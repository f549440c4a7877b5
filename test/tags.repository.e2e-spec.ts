/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { DataSource, QueryRunner } from 'typeorm';
import { StatementRunner } from '../src/database/statement-runner';
import { tagNames, tagUpsert } from '../src/tags/tag-sql';
import { TagSort } from '../src/tags/tag-list';
import { TagsRepository } from '../src/tags/tags.repository';
import { bulkSeed } from './support/bulk-seed';
import { useRepositoryModule } from './support/repository-module';
import { StatementRecorder } from './support/statement-recorder';
import { SeedBlog, seedBlogs as seed } from './support/tag-seed';

// The tag counters are kept by triggers on `blogs` (migration CreateTags); a tag's live count at an instant is its
// counter less its blogs scheduled after that instant. After every kind of write, what the repository reads must
// equal counting the blogs themselves.

/** The instant the counts are read for; blogs are published before it, at it, or scheduled after it. */
const NOW = new Date('2030-06-01T12:00:00.000Z');
const before = (ms: number): Date => new Date(NOW.getTime() - ms);
const after = (ms: number): Date => new Date(NOW.getTime() + ms);
const HOUR = 3_600_000;

const live = (slug: string, ...tags: string[]): SeedBlog => ({ slug, publishedAt: before(HOUR), tags });
const draft = (slug: string, ...tags: string[]): SeedBlog => ({ slug, publishedAt: null, tags });
const scheduled = (slug: string, at: Date, ...tags: string[]): SeedBlog => ({ slug, publishedAt: at, tags });

describe('TagsRepository on the real database', () => {
  const db = useRepositoryModule();
  let tags: TagsRepository;
  let dataSource: DataSource;

  beforeAll(() => {
    dataSource = db.dataSource;
    tags = db.moduleRef.get(TagsRepository);
  });

  beforeEach(async () => {
    await dataSource.query('TRUNCATE blogs, tags CASCADE');
  });

  /** Each tag's count at `now` as the repository reads it (list and one by one), checked against counting the blogs. */
  async function counts(now: Date = NOW): Promise<Record<string, number>> {
    const truth: { slug: string; count: string }[] = await dataSource.query(
      `SELECT s AS slug, count(*) AS count FROM blogs CROSS JOIN LATERAL unnest(tag_slugs) s
       WHERE published_at <= $1 GROUP BY s ORDER BY s COLLATE "C"`,
      [now],
    );
    const expected = Object.fromEntries(truth.map(({ slug, count }) => [slug, Number(count)]));
    const page = await tags.findPage({ sort: 'slug', limit: 100, offset: 0, now });
    const listed = Object.fromEntries(page.items.map(({ slug, count }) => [slug, count]));
    expect({ listed, total: page.total }).toEqual({ listed: expected, total: truth.length });
    // In count order (ties by slug), whole and in pages that cut through it.
    const byCount = Object.entries(expected).sort(([a, m], [b, n]) => n - m || (a < b ? -1 : 1));
    for (const [limit, offset] of [
      [100, 0],
      [1, 0],
      [2, 1],
      [3, 2],
    ]) {
      const counted = await tags.findPage({ sort: '-count', limit, offset, now });
      expect({ items: counted.items.map(({ slug, count }) => [slug, count]), total: counted.total }).toEqual({
        items: byCount.slice(offset, offset + limit),
        total: truth.length,
      });
    }
    const known: { slug: string }[] = await dataSource.query('SELECT slug FROM tags');
    const one = await Promise.all(known.map(({ slug }) => tags.findBySlug(slug, now)));
    expect(Object.fromEntries(one.map((tag) => [tag!.slug, tag!.count]))).toEqual(
      Object.fromEntries(known.map(({ slug }) => [slug, expected[slug] ?? 0])),
    );
    return expected;
  }

  it('counts the live blogs of each tag through a multi-row insert: drafts and scheduled blogs are not live', async () => {
    await seed(dataSource, [
      live('b1', 'nestjs', 'typescript'),
      live('b2', 'nestjs'),
      live('b3'),
      draft('b4', 'nestjs', 'drafts-only'),
      scheduled('b5', after(HOUR), 'nestjs', 'later'),
    ]);

    await expect(counts()).resolves.toEqual({ nestjs: 2, typescript: 1 });
    await expect(tags.findBySlug('later', NOW)).resolves.toEqual({ slug: 'later', name: 'LATER', count: 0 });
    await expect(tags.findBySlug('unknown', NOW)).resolves.toBeNull();
  });

  it('counts a scheduled blog from its instant on, with no write in between', async () => {
    await seed(dataSource, [live('b1', 'go'), scheduled('b2', after(HOUR), 'go', 'rust')]);

    await expect(counts(after(HOUR - 1))).resolves.toEqual({ go: 1 });
    await expect(counts(after(HOUR))).resolves.toEqual({ go: 2, rust: 1 });
    await expect(counts(before(2 * HOUR))).resolves.toEqual({});
  });

  it('follows deletes, of one blog and of many in one statement', async () => {
    await seed(dataSource, [live('b1', 'a', 'b'), live('b2', 'a'), live('b3', 'a', 'c'), draft('b4', 'a')]);

    await dataSource.query(`DELETE FROM blogs WHERE slug = 'b1'`);
    await expect(counts()).resolves.toEqual({ a: 2, c: 1 });

    await dataSource.query(`DELETE FROM blogs WHERE slug IN ('b2', 'b3', 'b4')`);
    await expect(counts()).resolves.toEqual({});
  });

  it('follows tag changes, of live, scheduled and draft blogs, and ignores updates of other columns', async () => {
    await seed(dataSource, [live('b1', 'a', 'b'), scheduled('b2', after(HOUR), 'a'), draft('b3', 'a'), live('x', 'c')]);
    await seed(dataSource, [draft('unused', 'd')]);

    await dataSource.query(`UPDATE blogs SET tag_slugs = '{b,c,d}' WHERE slug = 'b1'`);
    await expect(counts()).resolves.toEqual({ b: 1, c: 2, d: 1 });

    await dataSource.query(`UPDATE blogs SET tag_slugs = '{d}' WHERE slug IN ('b2', 'b3')`);
    await expect(counts()).resolves.toEqual({ b: 1, c: 2, d: 1 });
    await expect(counts(after(HOUR))).resolves.toEqual({ b: 1, c: 2, d: 2 });

    const rowsBefore: unknown[] = await dataSource.query('SELECT * FROM tag_counts ORDER BY tag_slug');
    await dataSource.query(`UPDATE blogs SET title = 'new', tag_slugs = tag_slugs, published_at = published_at`);
    await expect(dataSource.query('SELECT * FROM tag_counts ORDER BY tag_slug')).resolves.toEqual(rowsBefore);
    await expect(counts()).resolves.toEqual({ b: 1, c: 2, d: 1 });
  });

  it('follows drafts published, blogs made drafts, and drafts scheduled', async () => {
    await seed(dataSource, [draft('b1', 'a'), live('b2', 'a', 'b'), draft('b3', 'b')]);

    await dataSource.query(`UPDATE blogs SET published_at = $1 WHERE slug = 'b1'`, [before(1)]);
    await expect(counts()).resolves.toEqual({ a: 2, b: 1 });

    await dataSource.query(`UPDATE blogs SET published_at = NULL WHERE slug = 'b2'`);
    await expect(counts()).resolves.toEqual({ a: 1 });

    await dataSource.query(`UPDATE blogs SET published_at = $1 WHERE slug = 'b3'`, [after(HOUR)]);
    await expect(counts()).resolves.toEqual({ a: 1 });
    await expect(counts(after(HOUR))).resolves.toEqual({ a: 1, b: 1 });

    // A scheduled blog moved to another instant, and a live one made scheduled: no counter change, only the instant.
    await dataSource.query(`UPDATE blogs SET published_at = $1 WHERE slug IN ('b1', 'b3')`, [after(2 * HOUR)]);
    await expect(counts(after(HOUR))).resolves.toEqual({});
    await expect(counts(after(2 * HOUR))).resolves.toEqual({ a: 1, b: 1 });
  });

  it('TRUNCATE zeroes every count and keeps the tags', async () => {
    await seed(dataSource, [live('b1', 'a', 'b'), live('b2', 'a')]);

    await dataSource.query('TRUNCATE blogs CASCADE');

    await expect(counts()).resolves.toEqual({});
    await expect(tags.findBySlug('a', NOW)).resolves.toEqual({ slug: 'a', name: 'A', count: 0 });
    await seed(dataSource, [live('b3', 'a')]);
    await expect(counts()).resolves.toEqual({ a: 1 });
  });

  it('counts concurrent writes from several connections exactly', async () => {
    await seed(dataSource, [draft('seed', 'hot', 'cold')]);

    await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        dataSource.query(
          `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs)
           VALUES ('t', 'c', 'a', 'x', $1, $2, $3)`,
          [`c${i}`, before(1), i % 2 === 0 ? ['hot', 'cold'] : ['cold', 'hot']],
        ),
      ),
    );
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => dataSource.query(`DELETE FROM blogs WHERE slug = $1`, [`c${i}`])),
    );

    await expect(counts()).resolves.toEqual({ hot: 18, cold: 18 });
  });

  it('agrees with counting the blogs after a long run of mixed writes', async () => {
    let state = 7;
    const random = (n: number): number => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31) % n;
    const tagSets = [[], ['a'], ['b'], ['a', 'b'], ['c', 'a'], ['d', 'c', 'b']];
    const instants = [null, before(HOUR), after(HOUR), after(2 * HOUR)];
    await seed(
      dataSource,
      Array.from({ length: 60 }, (_, i) => ({
        slug: `r${i}`,
        publishedAt: instants[random(instants.length)],
        tags: tagSets[random(tagSets.length)],
      })),
    );
    for (let step = 0; step < 120; step += 1) {
      const slug = `r${random(60)}`;
      const change = random(3);
      if (change === 0) {
        await dataSource.query(`UPDATE blogs SET tag_slugs = $2 WHERE slug = $1`, [slug, tagSets[random(6)]]);
      } else if (change === 1) {
        await dataSource.query(`UPDATE blogs SET published_at = $2 WHERE slug = $1`, [slug, instants[random(4)]]);
      } else {
        await dataSource.query(`DELETE FROM blogs WHERE slug = $1`, [slug]);
        await seed(dataSource, [{ slug, publishedAt: instants[random(4)], tags: tagSets[random(6)] }]);
      }
    }

    for (const now of [NOW, after(HOUR), after(2 * HOUR)]) await counts(now);
  });

  it('stores a new tag with the blog that names it first, in one statement; the first name stays', async () => {
    const insert = `WITH "new_tags" AS (${tagUpsert('$3', '$4')})
      INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs)
      VALUES ('t', 'c', 'a', 'x', $1, $2, $3) RETURNING ${tagNames('tag_slugs')} AS names`;

    await dataSource.query(insert, ['b1', before(1), ['nestjs', 'go'], ['NestJS', 'Go']]);
    await dataSource.query(insert, ['b2', before(1), ['go', 'nestjs', 'rust'], ['GO', 'nestjs', 'Rust']]);

    const rows: { names: string[] }[] = await dataSource.query(
      `SELECT ${tagNames('tag_slugs')} AS names FROM blogs ORDER BY slug`,
    );
    expect(rows.map((row) => row.names)).toEqual([
      ['NestJS', 'Go'],
      ['Go', 'NestJS', 'Rust'],
    ]);
    await expect(counts()).resolves.toEqual({ go: 2, nestjs: 2, rust: 1 });
    await expect(tags.findBySlug('nestjs', NOW)).resolves.toEqual({ slug: 'nestjs', name: 'NestJS', count: 2 });
  });

  it('refuses a blog that names a tag not stored, so every counted slug has a name', async () => {
    await expect(seedWithoutTags('b1', ['ghost'])).rejects.toThrow(/FK_tag_counts_tag_slug/);
    await expect(seedWithoutTags('b2', [])).resolves.toBeDefined();
  });

  it('names tags by slug, reading each from the primary once: a name never changes', async () => {
    await seed(dataSource, [live('b1', 'names-go', 'names-rust')]);
    const reads = jest.spyOn(db.moduleRef.get(StatementRunner), 'onPrimary');

    const first = await tags.names(['names-go', 'names-unknown', 'names-go']);
    const second = await tags.names(['names-rust', 'names-go']);
    const third = await tags.names(['names-go', 'names-rust']);

    expect(Object.fromEntries(first)).toEqual({ 'names-go': 'NAMES-GO' });
    expect(Object.fromEntries(second)).toEqual({ 'names-go': 'NAMES-GO', 'names-rust': 'NAMES-RUST' });
    expect(Object.fromEntries(third)).toEqual(Object.fromEntries(second));
    expect(reads.mock.calls.map(([, values]) => values)).toEqual([[['names-go', 'names-unknown']], [['names-rust']]]);
    reads.mockRestore();
  });

  function seedWithoutTags(slug: string, tagSlugs: string[]): Promise<unknown> {
    return dataSource.query(
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES ('t', 'c', 'a', 'x', $1, $2, $3)`,
      [slug, before(1), tagSlugs],
    );
  }

  describe('findPage', () => {
    beforeEach(async () => {
      // Counts: ab 3, a-b 3, a0 2, b 1, z 3; slugs in code-point order: a-b < a0 < ab < b < z.
      await seed(dataSource, [
        live('p1', 'ab', 'a-b', 'z', 'a0'),
        live('p2', 'ab', 'a-b', 'z', 'b'),
        live('p3', 'z', 'ab', 'a-b', 'a0'),
        draft('p4', 'never', 'ab'),
        scheduled('p5', after(HOUR), 'later', 'b'),
      ]);
    });

    it.each<[TagSort, string[]]>([
      ['-count', ['a-b', 'ab', 'z', 'a0', 'b']],
      ['slug', ['a-b', 'a0', 'ab', 'b', 'z']],
    ])('orders by %s (ties by slug, code points), only tags with live blogs', async (sort, order) => {
      const page = await tags.findPage({ sort, limit: 10, offset: 0, now: NOW });

      expect(page.total).toBe(5);
      expect(page.items.map((tag) => tag.slug)).toEqual(order);
      expect(page.items.find((tag) => tag.slug === 'a-b')).toEqual({ slug: 'a-b', name: 'A-B', count: 3 });
    });

    it.each([
      [2, 0, ['a-b', 'ab']],
      [2, 2, ['z', 'a0']],
      [2, 4, ['b']],
      [2, 5, []],
      [10, 1_000, []],
    ])('pages with limit %p and offset %p, the total always counted', async (limit, offset, slugs) => {
      const page = await tags.findPage({ sort: '-count', limit, offset, now: NOW });

      expect({ slugs: page.items.map((tag) => tag.slug), total: page.total }).toEqual({ slugs, total: 5 });
    });

    it('ranks a tag by its live blogs, not by its counter, which counts its scheduled blogs too', async () => {
      await seed(dataSource, [
        ...['s1', 's2', 's3'].map((slug) => scheduled(slug, after(HOUR), 'big', 'gone')),
        live('s4', 'big'),
      ]);
      // Counters: big 4 (1 live), gone 3 (none live); live: a-b 3, ab 3, z 3, a0 2, b 1, big 1.
      const pages = await Promise.all(
        [
          [1, 4],
          [2, 4],
          [1, 5],
          [10, 0],
        ].map(([limit, offset]) => tags.findPage({ sort: '-count', limit, offset, now: NOW })),
      );

      expect(pages.map((page) => page.items.map((tag) => `${tag.slug} ${tag.count}`))).toEqual([
        ['b 1'],
        ['b 1', 'big 1'],
        ['big 1'],
        ['a-b 3', 'ab 3', 'z 3', 'a0 2', 'b 1', 'big 1'],
      ]);
      expect(pages.map((page) => page.total)).toEqual([6, 6, 6, 6]);
    });

    it('is empty with total 0 when no blog is live', async () => {
      await expect(tags.findPage({ sort: '-count', limit: 10, offset: 0, now: before(2 * HOUR) })).resolves.toEqual({
        items: [],
        total: 0,
      });
    });
  });
});

// The counts come from the counters; of `blogs` a statement reads only the scheduled ones, through the function
// scheduled_blogs, which reads them through the index on published_at (docs/architecture.md, "Tags").
describe('tag statements and the blogs they read (e2e)', () => {
  const recorder = new StatementRecorder();
  const db = useRepositoryModule(recorder);

  beforeAll(async () => {
    const { dataSource } = db;
    await dataSource.query(tagUpsert('$1', '$1'), [Array.from({ length: 50 }, (_, i) => `t${i}`)]);
    await bulkSeed(
      dataSource,
      5000,
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs)
       SELECT 't', 'c', 'a', 'x', 'b' || n, CASE WHEN n % 500 = 0 THEN $3::timestamptz + interval '1 day' ELSE $3::timestamptz - n * interval '1 minute' END,
         ARRAY['t' || (n % 50), 't' || (n % 7)]
       FROM generate_series($1::int, $2::int) n`,
      [NOW],
    );
    await dataSource.query('ANALYZE blogs');
  });

  /** Every scan of `blogs` or of `scheduled_blogs` in the plan of `sql`: its node type and the index or function. */
  async function scansOf(sql: string, parameters: unknown[], on: QueryRunner | DataSource = db.dataSource) {
    const rows: { 'QUERY PLAN': [{ Plan: PlanNode }] }[] = await on.query(`EXPLAIN (FORMAT JSON) ${sql}`, parameters);
    const scans: string[] = [];
    const visit = (node: PlanNode): void => {
      if (node['Relation Name'] === 'blogs') {
        const index = node['Index Name'] ?? node.Plans?.[0]?.['Index Name'] ?? 'no index';
        scans.push(`${node['Node Type']} ${index}`);
      }
      if (node['Function Name'] === 'scheduled_blogs') scans.push(`${node['Node Type']} ${node['Function Name']}`);
      node.Plans?.forEach(visit);
    };
    visit(rows[0]['QUERY PLAN'][0].Plan);
    return scans;
  }

  /** {@link scansOf} the one statement `read` runs. */
  async function blogScansOf(read: (tags: TagsRepository) => Promise<unknown>): Promise<string[]> {
    recorder.statements.length = 0;
    await read(db.moduleRef.get(TagsRepository));
    expect(recorder.statements).toHaveLength(1);
    const [{ sql, parameters }] = recorder.statements;
    return scansOf(sql, [...parameters]);
  }

  it.each<[string, (tags: TagsRepository) => Promise<unknown>]>([
    ['findPage -count', (tags) => tags.findPage({ sort: '-count', limit: 10, offset: 0, now: NOW })],
    ['findPage slug', (tags) => tags.findPage({ sort: 'slug', limit: 10, offset: 20, now: NOW })],
    ['findBySlug', (tags) => tags.findBySlug('t3', NOW)],
  ])('%s reads blogs once, through scheduled_blogs', async (_name, read) => {
    await expect(blogScansOf(read)).resolves.toEqual(['Function Scan scheduled_blogs']);
  });

  it('scheduled_blogs reads blogs through IDX_blogs_published_at_id in its generic plan', async () => {
    const [{ body }]: { body: string }[] = await db.dataSource.query(
      `SELECT prosrc AS body FROM pg_proc WHERE proname = 'scheduled_blogs'`,
    );
    const query = /RETURN QUERY (.*?);/s.exec(body)?.[1].replace(/"at"/g, '$1::timestamptz');
    expect(query).toContain('FROM "blogs"');
    const queryRunner = db.dataSource.createQueryRunner();
    try {
      await queryRunner.query(`SET plan_cache_mode = force_generic_plan`);
      await queryRunner.query(`PREPARE scheduled_blogs_body AS ${query}`);
      await expect(scansOf(`EXECUTE scheduled_blogs_body('${NOW.toISOString()}')`, [], queryRunner)).resolves.toEqual([
        expect.stringMatching(/^(Index Scan|Bitmap Heap Scan) IDX_blogs_published_at_id$/),
      ]);
    } finally {
      await queryRunner.query(`DEALLOCATE scheduled_blogs_body`);
      await queryRunner.query(`RESET plan_cache_mode`);
      await queryRunner.release();
    }
  });
});

/** A node of PostgreSQL's JSON plan, with the fields read here. */
interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Relation Name'?: string;
  readonly 'Index Name'?: string;
  readonly 'Function Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

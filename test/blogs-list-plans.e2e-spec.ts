/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { DataSource } from 'typeorm';
import { SEARCH_POSITION } from '../src/blogs/blog-list-statement';
import { BlogListQuery, BlogsRepository } from '../src/blogs/blogs.repository';
import { bulkSeed } from './support/bulk-seed';
import { useRepositoryModule } from './support/repository-module';
import { RecordedStatement, StatementRecorder } from './support/statement-recorder';

// The list statements the repository builds, and the indexes that can serve them: each filter and
// order has an index of its own (migration AddBlogListIndexes). With sequential scans priced out,
// the plan of each statement must name the index meant for it; a statement that no index matches
// (e.g. a title order without COLLATE "C") falls back to another scan and fails here.

/** Stands for the index of the primary key of `blogs`, whatever TypeORM named it. */
const PRIMARY_KEY = 'the primary key';

const at = (second: number): Date => new Date(Date.parse('2025-01-01T00:00:00.000Z') + second * 1000);

describe('list statements and their indexes (e2e)', () => {
  const recorder = new StatementRecorder();
  const db = useRepositoryModule(recorder);
  let repository: BlogsRepository;
  let dataSource: DataSource;

  beforeAll(async () => {
    ({ repository, dataSource } = db);
    await bulkSeed(
      dataSource,
      2000,
      `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
       SELECT 'title ' || n, 'word' || (n % 50) || ' text', 'author ' || (n % 400), 'x',
         timestamptz '2025-01-01T00:00:00Z' + n * interval '1 second', timestamptz '2025-06-01T00:00:00Z' + n * interval '1 second'
       FROM generate_series($1::int, $2::int) AS n`,
    );
    // As autovacuum leaves it: the visibility map set, so that index-only scans are priced as such.
    await dataSource.query('VACUUM ANALYZE blogs');
  });

  /**
   * The first statement `findList` runs for `query` (the first page of published blogs, newest first, by default),
   * after the write position a search reads first, which is left out of `recorder.statements`.
   */
  async function statementOf(query: Partial<BlogListQuery>): Promise<RecordedStatement> {
    recorder.statements.length = 0;
    await repository.findList({
      filters: {},
      sort: '-createdAt',
      limit: 10,
      offset: 0,
      withContent: true,
      status: 'published',
      now: new Date(),
      ...query,
    });
    const position = recorder.statements.findIndex(({ sql }) => sql === SEARCH_POSITION.text);
    if (position >= 0) recorder.statements.splice(position, 1);
    return recorder.statements[0];
  }

  /** The plan of the one statement `findList(query)` runs, with sequential scans and (unless `sorts`) sorts priced out. */
  async function planOf(query: Partial<BlogListQuery>, { sorts = false } = {}): Promise<string> {
    const statement = await statementOf(query);
    expect(recorder.statements).toHaveLength(1);
    const { sql, parameters } = statement;
    return dataSource.transaction(async (manager) => {
      await manager.query('SET LOCAL enable_seqscan = off');
      if (!sorts) await manager.query('SET LOCAL enable_sort = off');
      const rows: { 'QUERY PLAN': unknown }[] = await manager.query(`EXPLAIN (FORMAT JSON) ${sql}`, [...parameters]);
      return JSON.stringify(rows[0]['QUERY PLAN']);
    });
  }

  /** The index names the plan scans. */
  const indexesIn = (plan: string): string[] =>
    [...new Set([...plan.matchAll(/"Index Name":"([^"]+)"/g)].map((m) => m[1]))].sort();

  it.each<[string, Partial<BlogListQuery>, string[]]>([
    ['author, newest first', { filters: { author: 'author 3' } }, ['IDX_blogs_author_created_at_id']],
    ['author, by title', { sort: 'title', filters: { author: 'author 3' } }, ['IDX_blogs_author_title_c_id']],
    [
      'author, by updatedAt after a cursor',
      {
        sort: '-updatedAt',
        filters: { author: 'author 3' },
        after: { id: 1003, value: new Date('2025-06-01T00:16:43Z') },
      },
      ['IDX_blogs_author_updated_at_id'],
    ],
    ['title, ascending', { sort: 'title' }, ['IDX_blogs_title_c_id']],
    [
      'title, descending, after a cursor',
      { sort: '-title', after: { id: 9, value: 'title 5' } },
      ['IDX_blogs_title_c_id'],
    ],
    ['updatedAt, after a cursor', { sort: '-updatedAt', after: { id: 9, value: at(9) } }, ['IDX_blogs_updated_at_id']],
    ['newest first after a cursor', { after: { id: 9, value: at(9) } }, ['IDX_blogs_created_at_id']],
    ['id', { sort: 'id', after: { id: 9 } }, [PRIMARY_KEY]],
  ])('%s: the page is read through its index; the total comes from the counter', async (_name, query, indexes) => {
    const plan = await planOf(query);
    const [{ conname }] = await dataSource.query<{ conname: string }[]>(
      `SELECT conname FROM pg_constraint WHERE conrelid = 'blogs'::regclass AND contype = 'p'`,
    );

    expect(indexesIn(plan)).toEqual(
      expect.arrayContaining(indexes.map((name) => (name === PRIMARY_KEY ? conname : name))),
    );
    expect(plan.includes('"Relation Name":"blog_counts"')).toBe(query.filters?.author === undefined);
  });

  it.each<[string, Partial<BlogListQuery>, number]>([
    ['newest first', { filters: { author: 'author 3' } }, 1],
    ['by title', { sort: 'title', filters: { author: 'author 3' } }, 0],
  ])(
    "an author's live total, %s, is the author's counter: only the page reads IDX_blogs_author_created_at_id",
    async (_name, query, pageScans) => {
      const plan = await planOf(query);

      expect(indexesIn(plan)).toContain('PK_author_counts');
      expect(plan.match(/"Index Name":"IDX_blogs_author_created_at_id"/g) ?? []).toHaveLength(pageScans);
    },
  );

  it.each<[string, Partial<BlogListQuery>]>([
    ['with another filter', { filters: { author: 'author 3', createdAfter: at(1) } }],
    ['by publishedAt', { sort: '-publishedAt', filters: { author: 'author 3' } }],
  ])("an author's live total, %s, is counted from IDX_blogs_author_created_at_id alone", async (_name, query) => {
    const plan = await planOf(query);

    expect(plan).not.toContain('author_counts');
    expect(plan).toMatch(
      /"Node Type":"Aggregate".*?"Node Type":"Index Only Scan"[^{}]*"Index Name":"IDX_blogs_author_created_at_id"/,
    );
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['newest first', { filters: { tag: ['t1'] } }],
    [
      'oldest first after a cursor, by one author',
      { sort: 'createdAt', filters: { tag: ['t1'], author: 'author 3' }, after: { id: 9, value: at(9) } },
    ],
    ['of drafts by their owner', { filters: { tag: ['t1'] }, status: 'draft', owner: 'x' }],
  ])('one tag, %s: the page is read in order through PK_blog_tags', async (_name, query) => {
    const plan = await planOf(query);

    expect(indexesIn(plan)).toContain('PK_blog_tags');
  });

  /** The index names scanned in `plan` (JSON) outside any node whose one-time filter holds `gate`, and those inside. */
  function indexesBy(plan: string, gate: string): { readonly open: string[]; readonly gated: string[] } {
    const open = new Set<string>();
    const gated = new Set<string>();
    const visit = (node: Record<string, unknown>, inGate: boolean): void => {
      const filter = node['One-Time Filter'];
      const here = inGate || (typeof filter === 'string' && filter.includes(gate));
      if (typeof node['Index Name'] === 'string') (here ? gated : open).add(node['Index Name']);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) visit(child, here);
    };
    visit((JSON.parse(plan) as { Plan: Record<string, unknown> }[])[0].Plan, false);
    return { open: [...open].sort(), gated: [...gated].sort() };
  }

  it.each([
    ['newest first', {}, 'IDX_blogs_created_at_id'],
    ['by title', { sort: 'title' as const }, 'IDX_blogs_title_c_id'],
  ])(
    'a search %s counts through the GIN index of search_vector, and past 10,000 matches walks %s',
    async (_name, query, walked) => {
      // Walking a sort index until a rare word turns up took seconds at 1M blogs (docs/architecture.md): only a search
      // with more than 10,000 matches (a one-time filter on their count) walks it, testing each blog for the word.
      // The page of the matches is sorted: with sorts priced out, the planner would order the outer rows by an index.
      const plan = await planOf({ ...query, filters: { q: 'word7 text' } }, { sorts: true });
      const { open, gated } = indexesBy(plan, '> 10000');

      expect(open).toContain('IDX_blogs_search_vector');
      expect(open).not.toContain(walked);
      expect(gated).toEqual([walked]);
    },
  );

  it('createdAfter and updatedAfter count through their indexes', async () => {
    expect(indexesIn(await planOf({ filters: { createdAfter: at(1500) } }))).toContain('IDX_blogs_created_at_id');
    expect(indexesIn(await planOf({ sort: 'updatedAt', filters: { updatedAfter: at(1500) } }))).toContain(
      'IDX_blogs_updated_at_id',
    );
  });

  it('the page without content selects no content column, and a search matches once, for total and page alike', async () => {
    const { sql } = await statementOf({ filters: { q: 'word1' }, sort: 'title', limit: 5, withContent: false });

    expect(sql).not.toMatch(/"content"/);
    expect(sql).toMatch(/"search_vector" @@ \(SELECT websearch_to_tsquery\('simple', \$\d+\)\)/);
    // Once as the indexed operator for the matches, once as a function for the walk past 10,000 of them.
    expect(sql.match(/"search_vector" @@/g)).toHaveLength(1);
    expect(
      sql.match(/ts_match_vq\("search_vector", \(SELECT websearch_to_tsquery\('simple', \$\d+\)\)\)/g),
    ).toHaveLength(1);
    expect(sql).toMatch(/^WITH "matches" AS MATERIALIZED/);
  });

  it("a search's first page, for a word in one blog, keeps its generic plan, which reads IDX_blogs_search_vector", async () => {
    const { sql, parameters } = await statementOf({ filters: { q: '1999' } });
    const literals = parameters.map((value) =>
      typeof value === 'number' ? String(value) : `'${value instanceof Date ? value.toISOString() : String(value)}'`,
    );
    const queryRunner = dataSource.createQueryRunner();
    try {
      await queryRunner.query(`PREPARE search_page AS ${sql}`);
      // PostgreSQL chooses between the generic plan and a custom one from the sixth execution on.
      for (let run = 0; run < 6; run++) await queryRunner.query(`EXECUTE search_page(${literals.join(', ')})`);
      const plan: { 'QUERY PLAN': unknown }[] = await queryRunner.query(
        `EXPLAIN (FORMAT JSON) EXECUTE search_page(${literals.join(', ')})`,
      );
      const [{ generic }]: { generic: number }[] = await queryRunner.query(
        `SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE name = 'search_page'`,
      );

      expect(generic).toBeGreaterThan(0);
      expect(indexesIn(JSON.stringify(plan[0]['QUERY PLAN']))).toContain('IDX_blogs_search_vector');
    } finally {
      await queryRunner.query('DEALLOCATE search_page');
      await queryRunner.release();
    }
  });
});

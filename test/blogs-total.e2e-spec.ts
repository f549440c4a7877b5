/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { CreateBlogs1795323623852 } from '../src/blogs/migrations/1795323623852-CreateBlogs';
import { BLOGS, BODY, bearer, BlogListBody } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { createTestDatabase, E2E_ENV, withDataSource } from './support/test-database';

// The list's `total` comes from a counter kept by triggers in the writing transaction, not from
// count(*): it must equal count(*) after every kind of write, concurrent ones included.

describe('list total: the trigger-kept counter (e2e)', () => {
  const t = useTestApp();
  let alice: string;

  beforeAll(async () => {
    alice = t.token('alice');
  });

  async function totalAndCount(): Promise<{ total: number; count: number }> {
    const res = await t.http.get(`${BLOGS}?limit=1`);
    expect(res.status).toBe(200);
    const rows: { n: string | number }[] = await t.dataSource.query('SELECT count(*) AS n FROM blogs');
    return { total: (res.body as BlogListBody).total, count: Number(rows[0].n) };
  }

  it('counts concurrent creates exactly', async () => {
    const before = await totalAndCount();
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.http
          .post(BLOGS)
          .set('Authorization', bearer(alice))
          .send({ ...BODY, title: `concurrent ${i}` }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(40).fill(201));
    await expect(totalAndCount()).resolves.toEqual({ total: before.count + 40, count: before.count + 40 });
  });

  it('counts concurrent deletes exactly', async () => {
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        t.http
          .post(BLOGS)
          .set('Authorization', bearer(alice))
          .send({ ...BODY, title: `to delete ${i}` }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(30).fill(201));
    const before = await totalAndCount();
    const deleted = await Promise.all(
      created.map((r) =>
        t.http.delete(`${BLOGS}/${(r.body as { id: number }).id}`).set('Authorization', bearer(alice)),
      ),
    );
    expect(deleted.map((r) => r.status)).toEqual(Array(30).fill(204));
    await expect(totalAndCount()).resolves.toEqual({ total: before.count - 30, count: before.count - 30 });
  });

  it.each([
    [
      'a create of a draft',
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at) VALUES ('d', 'c', 'a', 'x', 'd', NULL)`,
    ],
    ['a delete of a draft', `DELETE FROM blogs WHERE published_at IS NULL`],
    ['a delete of nothing', `DELETE FROM blogs WHERE id = -1`],
  ])('writes no counter row for %s', async (_, write) => {
    const draft = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(alice))
      .send({ ...BODY, title: 'a draft', status: 'draft' });
    expect(draft.status).toBe(201);
    const versions = () => t.dataSource.query('SELECT shard, xmin::text AS xmin FROM blog_counts ORDER BY shard');
    const before: unknown = await versions();
    await t.dataSource.query(write);
    const after: unknown = await versions();
    await t.dataSource.query('DELETE FROM blogs WHERE published_at IS NULL');
    expect(after).toEqual(before);
    const figures = await totalAndCount();
    expect(figures.total).toBe(figures.count);
  });

  it('follows writes made in SQL: a bulk insert, a delete, a rolled-back insert and TRUNCATE', async () => {
    await t.dataSource.query(
      `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'bulk', 'c', 'a', 'x' FROM generate_series(1, 250)`,
    );
    let figures = await totalAndCount();
    expect(figures.total).toBe(figures.count);

    await t.dataSource.query(`DELETE FROM blogs WHERE id IN (SELECT id FROM blogs ORDER BY id LIMIT 7)`);
    figures = await totalAndCount();
    expect(figures.total).toBe(figures.count);

    const runner = t.dataSource.createQueryRunner();
    await runner.startTransaction();
    await runner.query(`INSERT INTO blogs (title, content, author, owner_sub) VALUES ('gone', 'c', 'a', 'x')`);
    await runner.rollbackTransaction();
    await runner.release();
    figures = await totalAndCount();
    expect(figures.total).toBe(figures.count);

    await t.dataSource.query('TRUNCATE blogs CASCADE');
    await expect(totalAndCount()).resolves.toEqual({ total: 0, count: 0 });
  });

  /** Each author's `total` in the list filtered by that author alone, and the live blogs counted in SQL. */
  async function authorTotals(authors: readonly string[]): Promise<{ totals: number[]; counts: number[] }> {
    const totals: number[] = [];
    const counts: number[] = [];
    for (const author of authors) {
      const res = await t.http.get(BLOGS).query({ author, limit: 1 });
      expect(res.status).toBe(200);
      totals.push((res.body as BlogListBody).total);
      const rows: { n: string | number }[] = await t.dataSource.query(
        'SELECT count(*) AS n FROM blogs WHERE author = $1 AND published_at <= now()',
        [author],
      );
      counts.push(Number(rows[0].n));
    }
    return { totals, counts };
  }

  it("keeps each author's total exact through every kind of write", async () => {
    const authors = ['Ada', 'Grace'];
    const create = (body: Record<string, unknown>) =>
      t.http
        .post(BLOGS)
        .set('Authorization', bearer(alice))
        .send({ ...BODY, author: 'Ada', ...body });
    const patch = (id: number, body: Record<string, unknown>) =>
      t.http.patch(`${BLOGS}/${id}`).set('Authorization', bearer(alice)).send(body);
    const future = new Date(Date.now() + 3_600_000).toISOString();

    const live = await Promise.all(Array.from({ length: 12 }, (_, i) => create({ title: `live ${i}` })));
    const draft = await create({ title: 'draft', status: 'draft' });
    const scheduled = await create({ title: 'scheduled', status: 'scheduled', publishedAt: future });
    expect([...live, draft, scheduled].map((r) => r.status)).toEqual(Array(14).fill(201));
    const ids = live.map((r) => (r.body as { id: number }).id);
    let figures = await authorTotals(authors);
    expect(figures.totals).toEqual([12, 0]);
    expect(figures.totals).toEqual(figures.counts);

    const writes = [
      () => patch(ids[0], { author: 'Grace' }),
      () => patch(ids[1], { status: 'draft' }),
      () => patch((draft.body as { id: number }).id, { status: 'published', author: 'Grace' }),
      () => patch((scheduled.body as { id: number }).id, { status: 'published' }),
      () => t.http.delete(`${BLOGS}/${ids[2]}`).set('Authorization', bearer(alice)),
    ];
    for (const write of writes) {
      expect((await write()).status).toBeLessThan(300);
      figures = await authorTotals(authors);
      expect(figures.totals).toEqual(figures.counts);
    }
    expect(figures.totals).toEqual([10, 2]);

    await t.dataSource.query(
      `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'bulk', 'c', 'Grace', 'x' FROM generate_series(1, 30)`,
    );
    await t.dataSource.query(
      `DELETE FROM blogs WHERE id IN (SELECT id FROM blogs WHERE author = 'Ada' AND published_at IS NOT NULL ORDER BY id LIMIT 4)`,
    );
    await t.dataSource.query(
      `UPDATE blogs SET author = 'Ada' WHERE id IN (SELECT id FROM blogs WHERE title = 'bulk' LIMIT 5)`,
    );
    figures = await authorTotals(authors);
    expect(figures.totals).toEqual(figures.counts);
    expect(figures.totals).toEqual([11, 27]);

    await t.dataSource.query('TRUNCATE blogs CASCADE');
    await expect(authorTotals(authors)).resolves.toEqual({ totals: [0, 0], counts: [0, 0] });
  });
});

// JIT compilation made the list statement ~30x slower at a million blogs; PGlite has no JIT.
(process.env[E2E_ENV.serverUrl] ? describe : describe.skip)(
  'database connections (e2e, PostgreSQL server only)',
  () => {
    const t = useTestApp();

    it('run without JIT', async () => {
      await expect(t.dataSource.query('SHOW jit')).resolves.toEqual([{ jit: 'off' }]);
    });
  },
);

describe('migrations CountBlogs and CountBlogsByAuthor on a table that already has blogs (e2e)', () => {
  it('start the counters at the number of existing blogs, in all and by author', async () => {
    const database = await createTestDatabase({ empty: true });
    const env = database.env;
    // Migrations run on the direct session (DATABASE_MIGRATION_URL when the run goes through PgBouncer).
    const url = env.DATABASE_MIGRATION_URL ?? env.DATABASE_URL;
    const options = buildDataSourceOptions({ url, dataDir: env.DATA_DIR ?? '' });
    try {
      await withDataSource({ ...options, migrations: [CreateBlogs1795323623852] }, async (before) => {
        await before.runMigrations();
        await before.query(
          `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'old', 'c', 'a', 'x' FROM generate_series(1, 31)`,
        );
      });

      await withDataSource(options, async (after) => {
        await after.runMigrations();
        const rows: { total: string | number }[] = await after.query('SELECT sum(n) AS total FROM blog_counts');
        expect(Number(rows[0].total)).toBe(31);
        const authors: { author: string; n: string | number }[] = await after.query(
          'SELECT author, sum(n) AS n FROM author_counts GROUP BY author',
        );
        expect(authors.map(({ author, n }) => [author, Number(n)])).toEqual([['a', 31]]);
      });
    } finally {
      await database.drop();
    }
  });
});

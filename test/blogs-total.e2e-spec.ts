import { DataSource } from 'typeorm';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { CreateBlogs1795323623852 } from '../src/blogs/migrations/1795323623852-CreateBlogs';
import { BLOGS, BODY, bearer, BlogListBody } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { createTestDatabase, E2E_ENV } from './support/test-database';

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

describe('migration CountBlogs on a table that already has blogs (e2e)', () => {
  it('starts the counter at the number of existing blogs', async () => {
    const database = await createTestDatabase({ empty: true });
    const env = database.env;
    // Migrations run on the direct session (DATABASE_MIGRATION_URL when the run goes through PgBouncer).
    const url = env.DATABASE_MIGRATION_URL ?? env.DATABASE_URL;
    const options = buildDataSourceOptions({ url, dataDir: env.DATA_DIR ?? '' });
    try {
      const before = new DataSource({ ...options, migrations: [CreateBlogs1795323623852] });
      await before.initialize();
      await before.runMigrations();
      await before.query(
        `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'old', 'c', 'a', 'x' FROM generate_series(1, 31)`,
      );
      await before.destroy();

      const after = new DataSource(options);
      await after.initialize();
      try {
        await after.runMigrations();
        const rows: { total: string | number }[] = await after.query('SELECT sum(n) AS total FROM blog_counts');
        expect(Number(rows[0].total)).toBe(31);
      } finally {
        await after.destroy();
      }
    } finally {
      await database.drop();
    }
  });
});

import { DataSource } from 'typeorm';
import { CreateBlogs1795323623852 } from '../src/blogs/migrations/1795323623852-CreateBlogs';
import { CountBlogs1795400000000 } from '../src/blogs/migrations/1795400000000-CountBlogs';
import { AddBlogVersion1795400100000 } from '../src/blogs/migrations/1795400100000-AddBlogVersion';
import { AddBlogListIndexes1795400200000 } from '../src/blogs/migrations/1795400200000-AddBlogListIndexes';
import { AddPublishing1795400300000 } from '../src/blogs/migrations/1795400300000-AddPublishing';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { createTestDatabase, TestDatabase } from './support/test-database';

// Migration CreateTags on a database that already has blogs with tag slugs: it names each slug's tag by the slug,
// fills the counters, and its down() leaves blogs as they were.

const COUNTS = `SELECT t.slug, t.name, coalesce(sum(c.n), 0)::int AS n FROM tags t
  LEFT JOIN tag_counts c ON c.tag_slug = t.slug GROUP BY t.slug, t.name ORDER BY t.slug`;

describe('migration CreateTags on blogs that hold tag slugs (e2e)', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterAll(async () => {
    await database.drop();
  });

  it('backfills tags and counts, and down() drops them with their triggers', async () => {
    // Migrations run on the direct session (DATABASE_MIGRATION_URL when the run goes through PgBouncer).
    const url = database.env.DATABASE_MIGRATION_URL ?? database.env.DATABASE_URL;
    const options = buildDataSourceOptions({ url, dataDir: database.env.DATA_DIR ?? '' });
    const before = new DataSource({
      ...options,
      migrations: [
        CreateBlogs1795323623852,
        CountBlogs1795400000000,
        AddBlogVersion1795400100000,
        AddBlogListIndexes1795400200000,
        AddPublishing1795400300000,
      ],
    });
    await before.initialize();
    await before.runMigrations();
    await before.query(
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES
        ('t', 'c', 'a', 'x', 'b1', now(), '{go,rust}'), ('t', 'c', 'a', 'x', 'b2', now(), '{go}'),
        ('t', 'c', 'a', 'x', 'b3', NULL, '{go,draft}'), ('t', 'c', 'a', 'x', 'b4', now() + interval '1 day', '{go}')`,
    );
    await before.destroy();

    const after = new DataSource(options);
    await after.initialize();
    try {
      await after.runMigrations();
      const backfilled: unknown = await after.query(COUNTS);
      expect(backfilled).toEqual([
        { slug: 'draft', name: 'draft', n: 0 },
        { slug: 'go', name: 'go', n: 3 },
        { slug: 'rust', name: 'rust', n: 1 },
      ]);

      await after.undoLastMigration();
      const left: { name: string }[] = await after.query(
        `SELECT tgname AS name FROM pg_trigger WHERE tgname LIKE '%tags%'
         UNION ALL SELECT proname FROM pg_proc WHERE proname LIKE '%tags%'
         UNION ALL SELECT relname FROM pg_class WHERE relname IN ('tags', 'tag_counts')`,
      );
      expect(left).toEqual([]);
      await after.query(
        `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES ('t', 'c', 'a', 'x', 'b5', now(), '{new}')`,
      );

      await after.runMigrations();
      await expect(after.query(COUNTS)).resolves.toEqual([
        { slug: 'draft', name: 'draft', n: 0 },
        { slug: 'go', name: 'go', n: 3 },
        { slug: 'new', name: 'new', n: 1 },
        { slug: 'rust', name: 'rust', n: 1 },
      ]);
    } finally {
      await after.destroy();
    }
  });
});

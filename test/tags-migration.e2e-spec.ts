/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { DataSource, DataSourceOptions } from 'typeorm';
import { CreateBlogs1795323623852 } from '../src/blogs/migrations/1795323623852-CreateBlogs';
import { CountBlogs1795400000000 } from '../src/blogs/migrations/1795400000000-CountBlogs';
import { AddBlogVersion1795400100000 } from '../src/blogs/migrations/1795400100000-AddBlogVersion';
import { AddBlogListIndexes1795400200000 } from '../src/blogs/migrations/1795400200000-AddBlogListIndexes';
import { AddPublishing1795400300000 } from '../src/blogs/migrations/1795400300000-AddPublishing';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import { CreateTags1795400400000 } from '../src/tags/migrations/1795400400000-CreateTags';
import { IndexBlogsByTag1795400500000 } from '../src/tags/migrations/1795400500000-IndexBlogsByTag';
import { FoldTagCountShards1795400700000 } from '../src/tags/migrations/1795400700000-FoldTagCountShards';
import { AddScheduledBlogs1795400600000 } from '../src/blogs/migrations/1795400600000-AddScheduledBlogs';
import { createTestDatabase, TestDatabase } from './support/test-database';

// Migrations CreateTags and IndexBlogsByTag on a database that already has blogs with tag slugs: CreateTags names
// each slug's tag by the slug and fills the counters, IndexBlogsByTag fills `blog_tags`, and their down() leave blogs
// as they were.

const BEFORE_TAGS = [
  CreateBlogs1795323623852,
  CountBlogs1795400000000,
  AddBlogVersion1795400100000,
  AddBlogListIndexes1795400200000,
  AddPublishing1795400300000,
];

const COUNTS = `SELECT t.slug, t.name, coalesce(sum(c.n), 0)::int AS n FROM tags t
  LEFT JOIN tag_counts c ON c.tag_slug = t.slug GROUP BY t.slug, t.name ORDER BY t.slug`;

/** `blog_tags` as it is, and as the blogs' tags say it should be. */
const INDEXED = `SELECT tag_slug, blog_created_at, blog_id FROM blog_tags ORDER BY 1, 2, 3`;
const EXPECTED = `SELECT DISTINCT s AS tag_slug, created_at AS blog_created_at, id AS blog_id
  FROM blogs CROSS JOIN LATERAL unnest(tag_slugs) s ORDER BY 1, 2, 3`;

/** Each tag's counter (over its shards, if any) where it is not zero, and what the blogs say it should be. */
const COUNTED = `SELECT tag_slug, sum(n)::int AS n FROM tag_counts GROUP BY 1 HAVING sum(n) <> 0 ORDER BY 1`;
const EXPECTED_COUNTS = `SELECT s AS tag_slug, count(*)::int AS n FROM blogs CROSS JOIN LATERAL unnest(tag_slugs) s
  WHERE published_at IS NOT NULL GROUP BY 1 ORDER BY 1`;

describe('migrations CreateTags, IndexBlogsByTag and FoldTagCountShards on blogs that hold tag slugs (e2e)', () => {
  let database: TestDatabase;

  beforeEach(async () => {
    database = await createTestDatabase({ empty: true });
  });

  afterEach(async () => {
    await database.drop();
  });

  /** A data source on the test database (the direct session when the run goes through PgBouncer). */
  const dataSource = (migrations?: DataSourceOptions['migrations']): DataSource => {
    const url = database.env.DATABASE_MIGRATION_URL ?? database.env.DATABASE_URL;
    const options = buildDataSourceOptions({ url, dataDir: database.env.DATA_DIR ?? '' });
    return new DataSource({ ...options, ...(migrations ? { migrations } : {}) });
  };

  /** Runs `migrations` and then the statements `writes` on a data source of its own. */
  const migrate = async (migrations: DataSourceOptions['migrations'], ...writes: string[]): Promise<void> => {
    const before = dataSource(migrations);
    await before.initialize();
    try {
      await before.runMigrations();
      for (const write of writes) await before.query(write);
    } finally {
      await before.destroy();
    }
  };

  it('backfills tags and counts, and down() drops them with their triggers', async () => {
    await migrate(
      BEFORE_TAGS,
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES
        ('t', 'c', 'a', 'x', 'b1', now(), '{go,rust}'), ('t', 'c', 'a', 'x', 'b2', now(), '{go}'),
        ('t', 'c', 'a', 'x', 'b3', NULL, '{go,draft}'), ('t', 'c', 'a', 'x', 'b4', now() + interval '1 day', '{go}')`,
    );

    const after = dataSource([...BEFORE_TAGS, CreateTags1795400400000]);
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

  it('IndexBlogsByTag fills blog_tags, its triggers keep it through every write, and down() drops them', async () => {
    await migrate(
      [...BEFORE_TAGS, CreateTags1795400400000],
      `INSERT INTO tags (slug, name) VALUES ('go', 'go'), ('rust', 'rust')`,
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES
        ('t', 'c', 'a', 'x', 'b1', now(), '{go,rust}'), ('t', 'c', 'a', 'x', 'b2', NULL, '{go}'),
        ('t', 'c', 'a', 'x', 'b3', now(), '{}')`,
    );
    const after = dataSource([...BEFORE_TAGS, CreateTags1795400400000, IndexBlogsByTag1795400500000]);
    await after.initialize();
    try {
      await after.runMigrations();
      const backfilled: { tag_slug: string }[] = await after.query(INDEXED);
      expect(backfilled.map((row) => row.tag_slug)).toEqual(['go', 'go', 'rust']);
      await expect(after.query(INDEXED)).resolves.toEqual(await after.query(EXPECTED));

      await after.query(`INSERT INTO tags (slug, name) VALUES ('zig', 'zig'), ('c', 'c')`);
      for (const write of [
        `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES ('t', 'c', 'a', 'x', 'b4', now(), '{zig,go}')`,
        `UPDATE blogs SET tag_slugs = '{c,rust}' WHERE slug = 'b1'`,
        `UPDATE blogs SET tag_slugs = '{zig}' WHERE slug = 'b3'`,
        `UPDATE blogs SET title = 'u', published_at = now() WHERE slug = 'b2'`,
        `DELETE FROM blogs WHERE slug = 'b4'`,
      ]) {
        await after.query(write);
        await expect(after.query(INDEXED)).resolves.toEqual(await after.query(EXPECTED));
      }
      const indexed: unknown[] = await after.query(INDEXED);
      expect(indexed).toHaveLength(4);

      await after.query(`TRUNCATE blogs CASCADE`);
      await expect(after.query(INDEXED)).resolves.toEqual([]);

      await after.undoLastMigration();
      const left: unknown[] = await after.query(
        `SELECT tgname AS name FROM pg_trigger WHERE tgname LIKE 'blogs_index_tags%'
         UNION ALL SELECT proname FROM pg_proc WHERE proname LIKE 'blogs_index_tags%'
         UNION ALL SELECT relname FROM pg_class WHERE relname = 'blog_tags'`,
      );
      expect(left).toEqual([]);
    } finally {
      await after.destroy();
    }
  });

  it('FoldTagCountShards folds the shards into one row per tag, its triggers count there, and down() shards again', async () => {
    const before = [
      ...BEFORE_TAGS,
      CreateTags1795400400000,
      IndexBlogsByTag1795400500000,
      AddScheduledBlogs1795400600000,
    ];
    await migrate(
      before,
      `INSERT INTO tags (slug, name) VALUES ('go', 'go'), ('rust', 'rust'), ('zig', 'zig'), ('c', 'c')`,
      `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES
        ('t', 'c', 'a', 'x', 'b1', now(), '{go,rust}'), ('t', 'c', 'a', 'x', 'b2', now(), '{go}'),
        ('t', 'c', 'a', 'x', 'b3', NULL, '{rust}')`,
      // As several connections leave them: a tag's count spread over shards, one of them below zero.
      `DELETE FROM tag_counts`,
      `INSERT INTO tag_counts (tag_slug, shard, n) VALUES ('go', 0, 3), ('go', 1, -2), ('go', 3, 1), ('rust', 2, 1)`,
    );
    const after = dataSource([...before, FoldTagCountShards1795400700000]);
    await after.initialize();
    try {
      await after.runMigrations();
      await expect(after.query(`SELECT tag_slug, n::int FROM tag_counts ORDER BY 1`)).resolves.toEqual([
        { tag_slug: 'go', n: 2 },
        { tag_slug: 'rust', n: 1 },
      ]);

      for (const write of [
        `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES ('t', 'c', 'a', 'x', 'b4', now(), '{zig,go}')`,
        `UPDATE blogs SET tag_slugs = '{rust}' WHERE slug = 'b1'`,
        `UPDATE blogs SET published_at = NULL WHERE slug = 'b2'`,
        `UPDATE blogs SET published_at = now() WHERE slug = 'b3'`,
        `DELETE FROM blogs WHERE slug = 'b1'`,
      ]) {
        await after.query(write);
        await expect(after.query(COUNTED)).resolves.toEqual(await after.query(EXPECTED_COUNTS));
      }
      const rows: unknown[] = await after.query(`SELECT tag_slug FROM tag_counts`);
      expect(rows).toHaveLength(3);

      await after.undoLastMigration();
      await after.query(
        `INSERT INTO blogs (title, content, author, owner_sub, slug, published_at, tag_slugs) VALUES ('t', 'c', 'a', 'x', 'b5', now(), '{c,go}')`,
      );
      await expect(after.query(COUNTED)).resolves.toEqual(await after.query(EXPECTED_COUNTS));
      await expect(
        after.query(`SELECT count(*)::int AS n FROM tag_counts WHERE tag_slug = 'c' AND shard BETWEEN 0 AND 3`),
      ).resolves.toEqual([{ n: 1 }]);
    } finally {
      await after.destroy();
    }
  });
});

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows per author in `author_counts`; each connection adds to the row of its backend pid modulo this. */
const AUTHOR_COUNT_SHARDS = 16;

/** SQL: adds `n` to the row of `author` in this connection's shard. */
const addToAuthor = (author: string, n: number): string => `
  INSERT INTO "author_counts" ("author", "shard", "n") VALUES (${author}, pg_backend_pid() % ${AUTHOR_COUNT_SHARDS}, ${n})
  ON CONFLICT ("author", "shard") DO UPDATE SET "n" = "author_counts"."n" + EXCLUDED."n"`;

/**
 * Keeps each author's count of blogs that are not drafts in `author_counts`, as `blog_counts` keeps all of them, so that
 * an author's live total is a sum of at most 16 rows (docs/architecture.md, "The blog counter").
 */
export class CountBlogsByAuthor1795401300000 implements MigrationInterface {
  name = 'CountBlogsByAuthor1795401300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no write falls between the count and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "author_counts" ("author" text NOT NULL, "shard" smallint NOT NULL, "n" bigint NOT NULL DEFAULT 0,
        CONSTRAINT "PK_author_counts" PRIMARY KEY ("author", "shard"))`,
    );
    await queryRunner.query(
      `INSERT INTO "author_counts" ("author", "shard", "n")
        SELECT "author", 0, count(*) FROM "blogs" WHERE "published_at" IS NOT NULL GROUP BY "author"`,
    );
    // Row-level, with a WHEN that PostgreSQL evaluates before calling the function: an API write changes one blog, and
    // a statement-level trigger's transition table and grouping cost a create twice as much (docs/performance.md).
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_authors"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          ${addToAuthor('NEW."author"', 1)};
        ELSIF TG_OP = 'DELETE' THEN
          ${addToAuthor('OLD."author"', -1)};
        ELSE
          -- Both rows in author order, so that two updates moving blogs between the same authors never deadlock.
          INSERT INTO "author_counts" ("author", "shard", "n")
          SELECT d."author", pg_backend_pid() % ${AUTHOR_COUNT_SHARDS}, sum(d."n") FROM (
            SELECT OLD."author", -1 WHERE OLD."published_at" IS NOT NULL
            UNION ALL SELECT NEW."author", 1 WHERE NEW."published_at" IS NOT NULL) d ("author", "n")
          GROUP BY d."author" HAVING sum(d."n") <> 0 ORDER BY d."author"
          ON CONFLICT ("author", "shard") DO UPDATE SET "n" = "author_counts"."n" + EXCLUDED."n";
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_authors_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "author_counts";
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_authors_inserted" AFTER INSERT ON "blogs" FOR EACH ROW
        WHEN (NEW."published_at" IS NOT NULL) EXECUTE FUNCTION "blogs_count_authors"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_authors_deleted" AFTER DELETE ON "blogs" FOR EACH ROW
        WHEN (OLD."published_at" IS NOT NULL) EXECUTE FUNCTION "blogs_count_authors"()`,
    );
    // Fires only when the blog moves between authors or in or out of the drafts: other updates pay nothing.
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_authors_updated" AFTER UPDATE OF "author", "published_at" ON "blogs" FOR EACH ROW
        WHEN ((OLD."published_at" IS NULL) <> (NEW."published_at" IS NULL)
          OR (OLD."author" <> NEW."author" AND NEW."published_at" IS NOT NULL))
        EXECUTE FUNCTION "blogs_count_authors"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_authors_truncated" AFTER TRUNCATE ON "blogs"
        FOR EACH STATEMENT EXECUTE FUNCTION "blogs_count_authors_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const event of ['truncated', 'updated', 'deleted', 'inserted']) {
      await queryRunner.query(`DROP TRIGGER "blogs_count_authors_${event}" ON "blogs"`);
    }
    await queryRunner.query(`DROP FUNCTION "blogs_count_authors_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_authors"()`);
    await queryRunner.query(`DROP TABLE "author_counts"`);
  }
}

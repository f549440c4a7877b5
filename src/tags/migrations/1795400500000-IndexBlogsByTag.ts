import { MigrationInterface, QueryRunner } from 'typeorm';

/** Inserts a row of `blog_tags` per tag of the blog `row` (`NEW` or `OLD`). */
const insertTagsOf = (row: string): string =>
  `INSERT INTO "blog_tags" ("tag_slug", "blog_created_at", "blog_id")
    SELECT DISTINCT s, ${row}."created_at", ${row}."id" FROM unnest(${row}."tag_slugs") s ON CONFLICT DO NOTHING`;

/** Deletes the rows of `blog_tags` of the blog `row`, by primary key. */
const deleteTagsOf = (row: string): string =>
  `DELETE FROM "blog_tags"
    WHERE "tag_slug" = ANY(${row}."tag_slugs") AND "blog_created_at" = ${row}."created_at" AND "blog_id" = ${row}."id"`;

/**
 * `blog_tags`, a row per tag of each blog in list order (`tag_slug`, `created_at`, `id`), filled for the blogs that
 * exist and kept by triggers on `blogs`, so that `?tag=` reads a tag's newest blogs in order (docs/architecture.md,
 * "Tags").
 */
export class IndexBlogsByTag1795400500000 implements MigrationInterface {
  name = 'IndexBlogsByTag1795400500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no blog write falls between the backfill and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "blog_tags" ("tag_slug" text COLLATE "C" NOT NULL, "blog_created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "blog_id" integer NOT NULL, CONSTRAINT "PK_blog_tags" PRIMARY KEY ("tag_slug", "blog_created_at", "blog_id"))`,
    );
    await queryRunner.query(
      `INSERT INTO "blog_tags" ("tag_slug", "blog_created_at", "blog_id")
        SELECT DISTINCT s, b."created_at", b."id" FROM "blogs" b CROSS JOIN LATERAL unnest(b."tag_slugs") s`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "blogs_index_tags_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${insertTagsOf('NEW')};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_index_tags_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${deleteTagsOf('OLD')};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_index_tags_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${deleteTagsOf('OLD')};
        ${insertTagsOf('NEW')};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_index_tags_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        TRUNCATE "blog_tags";
        RETURN NULL;
      END $$`);
    // Row-level with a WHEN that PostgreSQL evaluates before calling the function: a blog without tags pays nothing.
    await queryRunner.query(
      `CREATE TRIGGER "blogs_index_tags_inserted" AFTER INSERT ON "blogs" FOR EACH ROW
        WHEN (cardinality(NEW."tag_slugs") > 0) EXECUTE FUNCTION "blogs_index_tags_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_index_tags_deleted" AFTER DELETE ON "blogs" FOR EACH ROW
        WHEN (cardinality(OLD."tag_slugs") > 0) EXECUTE FUNCTION "blogs_index_tags_deleted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_index_tags_updated" AFTER UPDATE OF "tag_slugs", "created_at", "id" ON "blogs" FOR EACH ROW
        WHEN (OLD."tag_slugs" IS DISTINCT FROM NEW."tag_slugs" OR OLD."created_at" <> NEW."created_at" OR OLD."id" <> NEW."id")
        EXECUTE FUNCTION "blogs_index_tags_updated"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_index_tags_truncated" AFTER TRUNCATE ON "blogs" FOR EACH STATEMENT EXECUTE FUNCTION "blogs_index_tags_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "blogs_index_tags_truncated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_index_tags_updated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_index_tags_deleted" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_index_tags_inserted" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_index_tags_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_index_tags_updated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_index_tags_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_index_tags_inserted"()`);
    await queryRunner.query(`DROP TABLE "blog_tags"`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows of `blog_counts`; each connection adds to the row of its backend pid modulo this. */
const BLOG_COUNT_SHARDS = 16;

/** Keeps the blog count in `blog_counts` by statement-level triggers (docs/architecture.md, "The blog counter"). */
export class CountBlogs1795400000000 implements MigrationInterface {
  name = 'CountBlogs1795400000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no insert falls between the count and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "blog_counts" ("shard" smallint NOT NULL, "n" bigint NOT NULL DEFAULT 0, CONSTRAINT "PK_blog_counts" PRIMARY KEY ("shard"))`,
    );
    await queryRunner.query(
      `INSERT INTO "blog_counts" ("shard", "n") SELECT s, CASE WHEN s = 0 THEN (SELECT count(*) FROM "blogs") ELSE 0 END FROM generate_series(0, ${BLOG_COUNT_SHARDS - 1}) s`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" + (SELECT count(*) FROM "inserted")
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" - (SELECT count(*) FROM "deleted")
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = 0;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_inserted" AFTER INSERT ON "blogs" REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "blogs_count_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_deleted" AFTER DELETE ON "blogs" REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "blogs_count_deleted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_truncated" AFTER TRUNCATE ON "blogs" FOR EACH STATEMENT EXECUTE FUNCTION "blogs_count_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "blogs_count_truncated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_deleted" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_inserted" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_inserted"()`);
    await queryRunner.query(`DROP TABLE "blog_counts"`);
  }
}

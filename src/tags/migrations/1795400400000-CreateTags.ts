import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows of `tag_counts` per tag; each connection adds to the row of its backend pid modulo this. */
const TAG_COUNT_SHARDS = 4;

/** The shard a connection writes. */
const SHARD = `pg_backend_pid() % ${TAG_COUNT_SHARDS}`;

/** Adds `delta` per `tag_slug` of the rows `source` selects: one row per slug, in slug order (one lock order). */
const addToCounts = (source: string): string => `
  INSERT INTO "tag_counts" ("tag_slug", "shard", "n")
  SELECT d."tag_slug", ${SHARD}, sum(d."delta") FROM (${source}) d
  GROUP BY d."tag_slug" HAVING sum(d."delta") <> 0 ORDER BY d."tag_slug"
  ON CONFLICT ("tag_slug", "shard") DO UPDATE SET "n" = "tag_counts"."n" + EXCLUDED."n"`;

/** The tag slugs of the blogs of `rows` that are not drafts, each with `delta`. */
const tagsOf = (rows: string, delta: string): string =>
  `SELECT s."slug" AS "tag_slug", ${delta} AS "delta" FROM ${rows} r CROSS JOIN LATERAL unnest(r."tag_slugs") AS s("slug")
    WHERE r."published_at" IS NOT NULL`;

/**
 * Tags (docs/architecture.md, "Tags"): `tags`, and `tag_counts`, the number of blogs per tag that are not drafts, kept
 * by triggers on `blogs` and filled for the blogs that exist.
 */
export class CreateTags1795400400000 implements MigrationInterface {
  name = 'CreateTags1795400400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no blog write falls between the backfill and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "tags" ("slug" text COLLATE "C" NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_tags" PRIMARY KEY ("slug"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "tag_counts" ("tag_slug" text COLLATE "C" NOT NULL, "shard" smallint NOT NULL, "n" bigint NOT NULL DEFAULT '0', CONSTRAINT "PK_tag_counts" PRIMARY KEY ("tag_slug", "shard"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "tag_counts" ADD CONSTRAINT "FK_tag_counts_tag_slug" FOREIGN KEY ("tag_slug") REFERENCES "tags"("slug") ON DELETE NO ACTION ON UPDATE NO ACTION`,
    );
    // Slugs that blogs already hold get a tag named by the slug itself.
    await queryRunner.query(
      `INSERT INTO "tags" ("slug", "name") SELECT DISTINCT s, s FROM "blogs" CROSS JOIN LATERAL unnest("tag_slugs") s`,
    );
    await queryRunner.query(
      `INSERT INTO "tag_counts" ("tag_slug", "shard", "n")
        SELECT s, 0, count(*) FROM "blogs" CROSS JOIN LATERAL unnest("tag_slugs") s WHERE "published_at" IS NOT NULL GROUP BY s`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_tags_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addToCounts(tagsOf('(SELECT NEW.*)', '1'))};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_tags_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addToCounts(tagsOf('(SELECT OLD.*)', '-1'))};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_tags_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addToCounts(`${tagsOf('(SELECT OLD.*)', '-1')} UNION ALL ${tagsOf('(SELECT NEW.*)', '1')}`)};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_tags_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "tag_counts";
        RETURN NULL;
      END $$`);
    // Row-level, and only for a blog with tags that is no draft: the many blogs without tags pay nothing (a
    // statement-level trigger would run for every create).
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_tags_inserted" AFTER INSERT ON "blogs" FOR EACH ROW
        WHEN (cardinality(NEW."tag_slugs") > 0 AND NEW."published_at" IS NOT NULL) EXECUTE FUNCTION "blogs_count_tags_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_tags_deleted" AFTER DELETE ON "blogs" FOR EACH ROW
        WHEN (cardinality(OLD."tag_slugs") > 0 AND OLD."published_at" IS NOT NULL) EXECUTE FUNCTION "blogs_count_tags_deleted"()`,
    );
    // Only an update that changes the tags, or makes a draft of a blog or publishes a draft, pays for the trigger.
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_tags_updated" AFTER UPDATE OF "tag_slugs", "published_at" ON "blogs" FOR EACH ROW
        WHEN (OLD."tag_slugs" IS DISTINCT FROM NEW."tag_slugs" OR (OLD."published_at" IS NULL) <> (NEW."published_at" IS NULL))
        EXECUTE FUNCTION "blogs_count_tags_updated"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_tags_truncated" AFTER TRUNCATE ON "blogs" FOR EACH STATEMENT EXECUTE FUNCTION "blogs_count_tags_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "blogs_count_tags_truncated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_tags_updated" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_tags_deleted" ON "blogs"`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_tags_inserted" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_tags_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_tags_updated"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_tags_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_tags_inserted"()`);
    await queryRunner.query(`ALTER TABLE "tag_counts" DROP CONSTRAINT "FK_tag_counts_tag_slug"`);
    await queryRunner.query(`DROP TABLE "tag_counts"`);
    await queryRunner.query(`DROP TABLE "tags"`);
  }
}

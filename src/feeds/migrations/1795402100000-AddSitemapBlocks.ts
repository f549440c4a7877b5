import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ids per block (`SITEMAP_BLOCK_IDS`). */
const BLOCK = 1000;

/** SQL: the blogs of `rows` that are not drafts, per block: `block`, `n`, newest `updated_at`, in block order. */
const perBlock = (rows: string, where = 'TRUE'): string =>
  `SELECT r."id" / ${BLOCK}, count(*), max(r."updated_at") FROM ${rows} WHERE r."published_at" IS NOT NULL AND ${where}
   GROUP BY 1 ORDER BY 1`;

/** Adds the counts of `per` (a {@link perBlock}) to their blocks, keeping each block's newest `updated_at`. */
const addTo = (per: string): string =>
  `INSERT INTO "sitemap_blocks" ("block", "n", "updated_at") ${per}
   ON CONFLICT ("block") DO UPDATE SET "n" = "sitemap_blocks"."n" + EXCLUDED."n",
     "updated_at" = greatest("sitemap_blocks"."updated_at", EXCLUDED."updated_at")`;

/**
 * The sitemap index's summary of the blogs, `sitemap_blocks`, kept by statement-level triggers (docs/architecture.md,
 * "Feeds and sitemaps"): a create or an update adds to its block; a delete, or a blog made a draft again, counts its
 * block anew (at most 1000 rows by primary key) under the block row's lock, so that the newest `updated_at` stays exact.
 */
export class AddSitemapBlocks1795402100000 implements MigrationInterface {
  name = 'AddSitemapBlocks1795402100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no write falls between the summary and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "sitemap_blocks" ("block" integer NOT NULL, "n" integer NOT NULL DEFAULT 0, "updated_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_sitemap_blocks" PRIMARY KEY ("block"))`,
    );
    await queryRunner.query(`INSERT INTO "sitemap_blocks" ("block", "n", "updated_at") ${perBlock('"blogs" r')}`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_block_recount"("b" integer) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- The lock first: the count below then sees every write to the block that committed before it.
        PERFORM FROM "sitemap_blocks" WHERE "block" = "b" FOR UPDATE;
        UPDATE "sitemap_blocks" s SET ("n", "updated_at") = (
          SELECT count(*), max(r."updated_at") FROM "blogs" r
          WHERE r."id" >= "b" * ${BLOCK} AND r."id" < ("b" + 1) * ${BLOCK} AND r."published_at" IS NOT NULL)
        WHERE s."block" = "b";
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addTo(perBlock('"inserted" r'))};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addTo(
          `SELECT r."id" / ${BLOCK}, count(*) FILTER (WHERE o."published_at" IS NULL), max(r."updated_at")
           FROM "updated" r JOIN "previous" o ON o."id" = r."id" WHERE r."published_at" IS NOT NULL GROUP BY 1 ORDER BY 1`,
        )};
        PERFORM "sitemap_block_recount"(b."block") FROM (
          SELECT DISTINCT r."id" / ${BLOCK} AS "block" FROM "updated" r JOIN "previous" o ON o."id" = r."id"
          WHERE r."published_at" IS NULL AND o."published_at" IS NOT NULL ORDER BY 1) b;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM "sitemap_block_recount"(b."block") FROM (
          SELECT DISTINCT r."id" / ${BLOCK} AS "block" FROM "deleted" r WHERE r."published_at" IS NOT NULL ORDER BY 1) b;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "sitemap_blocks";
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_inserted" AFTER INSERT ON "blogs" REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "sitemap_blocks_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_updated" AFTER UPDATE ON "blogs" REFERENCING OLD TABLE AS "previous" NEW TABLE AS "updated" FOR EACH STATEMENT EXECUTE FUNCTION "sitemap_blocks_updated"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_deleted" AFTER DELETE ON "blogs" REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "sitemap_blocks_deleted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_truncated" AFTER TRUNCATE ON "blogs" FOR EACH STATEMENT EXECUTE FUNCTION "sitemap_blocks_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of ['truncated', 'deleted', 'updated', 'inserted']) {
      await queryRunner.query(`DROP TRIGGER "sitemap_blocks_${name}" ON "blogs"`);
      await queryRunner.query(`DROP FUNCTION "sitemap_blocks_${name}"()`);
    }
    await queryRunner.query(`DROP FUNCTION "sitemap_block_recount"(integer)`);
    await queryRunner.query(`DROP TABLE "sitemap_blocks"`);
  }
}

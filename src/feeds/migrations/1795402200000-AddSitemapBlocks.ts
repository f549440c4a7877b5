import { MigrationInterface, QueryRunner } from 'typeorm';

/** Ids per block (`SITEMAP_BLOCK_IDS`): block `b` holds ids `b * 1000 + 1` to `(b + 1) * 1000`, as files do. */
const BLOCK = 1000;

/** Rows per block; each connection adds to the row of its backend pid modulo this, as `blog_counts` does. */
const SHARDS = 16;

/**
 * The first key of the advisory locks of blocks (the second is the block): a write to a block holds its lock shared, a
 * recount exclusive, so that a recount counts after every write in flight and no write falls between its count and
 * its rows.
 */
const BLOCK_LOCKS = 1795402200;

/** SQL: adds blog `row` (not a draft) to its block's row of this connection, `n` by `added` (0 or 1). */
const addRow = (row: string, added: string): string =>
  `PERFORM pg_advisory_xact_lock_shared(${BLOCK_LOCKS}, (${row}."id" - 1) / ${BLOCK});
   INSERT INTO "sitemap_blocks" ("block", "shard", "n", "updated_at")
     VALUES ((${row}."id" - 1) / ${BLOCK}, pg_backend_pid() % ${SHARDS}, ${added}, ${row}."updated_at")
   ON CONFLICT ("block", "shard") DO UPDATE SET "n" = "sitemap_blocks"."n" + EXCLUDED."n",
     "updated_at" = greatest("sitemap_blocks"."updated_at", EXCLUDED."updated_at")`;

/**
 * The sitemap index's summary of the blogs, `sitemap_blocks` (docs/architecture.md, "Feeds and sitemaps"): per block
 * of 1000 ids and shard, the blogs that are not drafts and their newest `updated_at`, kept by row triggers that fire
 * only for such blogs. A create or an update adds to its shard; a delete, or a blog made a draft again, counts its
 * block anew (at most 1000 rows by primary key) under the block's advisory lock (exclusive; writes hold it shared), so the newest `updated_at` stays exact.
 */
export class AddSitemapBlocks1795402200000 implements MigrationInterface {
  name = 'AddSitemapBlocks1795402200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no write falls between the summary and the triggers.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(
      `CREATE TABLE "sitemap_blocks" ("block" integer NOT NULL, "shard" smallint NOT NULL, "n" integer NOT NULL DEFAULT 0, "updated_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_sitemap_blocks" PRIMARY KEY ("block", "shard"))`,
    );
    await queryRunner.query(
      `INSERT INTO "sitemap_blocks" ("block", "shard", "n", "updated_at")
       SELECT ("id" - 1) / ${BLOCK}, 0, count(*), max("updated_at") FROM "blogs" WHERE "published_at" IS NOT NULL GROUP BY 1`,
    );
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_block_recount"("b" integer) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        -- The lock first: the writes in flight to the block commit before the count below, later ones wait for it.
        PERFORM pg_advisory_xact_lock(${BLOCK_LOCKS}, "b");
        DELETE FROM "sitemap_blocks" WHERE "block" = "b" AND "shard" <> 0;
        INSERT INTO "sitemap_blocks" ("block", "shard", "n", "updated_at")
          SELECT "b", 0, count(*), max(r."updated_at") FROM "blogs" r
          WHERE r."id" > "b"::int8 * ${BLOCK} AND r."id" <= ("b" + 1)::int8 * ${BLOCK} AND r."published_at" IS NOT NULL
        ON CONFLICT ("block", "shard") DO UPDATE SET "n" = EXCLUDED."n", "updated_at" = EXCLUDED."updated_at";
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${addRow('NEW', '1')};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW."published_at" IS NULL THEN
          PERFORM "sitemap_block_recount"((NEW."id" - 1) / ${BLOCK});
        ELSE
          ${addRow('NEW', `CASE WHEN OLD."published_at" IS NULL THEN 1 ELSE 0 END`)};
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM "sitemap_block_recount"((OLD."id" - 1) / ${BLOCK});
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_blocks_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "sitemap_blocks";
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_inserted" AFTER INSERT ON "blogs" FOR EACH ROW WHEN (NEW."published_at" IS NOT NULL) EXECUTE FUNCTION "sitemap_blocks_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_updated" AFTER UPDATE ON "blogs" FOR EACH ROW WHEN (NEW."published_at" IS NOT NULL OR OLD."published_at" IS NOT NULL) EXECUTE FUNCTION "sitemap_blocks_updated"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "sitemap_blocks_deleted" AFTER DELETE ON "blogs" FOR EACH ROW WHEN (OLD."published_at" IS NOT NULL) EXECUTE FUNCTION "sitemap_blocks_deleted"()`,
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

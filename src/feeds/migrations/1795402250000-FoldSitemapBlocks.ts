import { MigrationInterface, QueryRunner } from 'typeorm';
import { AddSitemapBlocks1795402200000 } from './1795402200000-AddSitemapBlocks';

/** Ids per block (`SITEMAP_BLOCK_IDS`). */
const BLOCK = 1000;

/** Rows per block; each connection writes to the row of its backend pid modulo this. */
const SHARDS = 16;

/** SQL: adds blog `row` to its block's row of this connection: `n` by `added`, `stale` by `removed`. */
const addRow = (row: string, added: string, removed: string): string =>
  `INSERT INTO "sitemap_blocks" ("block", "shard", "n", "stale", "updated_at")
     VALUES ((${row}."id" - 1) / ${BLOCK}, pg_backend_pid() % ${SHARDS}, ${added}, ${removed},
       CASE WHEN ${removed} = 0 THEN ${row}."updated_at" END)
   ON CONFLICT ("block", "shard") DO UPDATE SET "n" = "sitemap_blocks"."n" + EXCLUDED."n",
     "stale" = "sitemap_blocks"."stale" + EXCLUDED."stale",
     "updated_at" = greatest("sitemap_blocks"."updated_at", EXCLUDED."updated_at")`;

/** SQL: the row trigger function `name` that runs `body` (statements) and returns null. */
const triggerFunction = (name: string, body: string): string =>
  `CREATE OR REPLACE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     ${body};
     RETURN NULL;
   END $$`;

/**
 * Deletes without the block lock (docs/architecture.md, "Feeds and sitemaps"): every write of a blog that is not a
 * draft adds to its block's row of its shard, a delete (or a blog made a draft again) `n - 1` and `stale + 1`, and
 * none takes a lock beyond that row. A block whose `stale` sums above 0 may name a removed blog's `updated_at`, so
 * readers take it from its blogs until `sitemap_block_fold` sets it anew and clears `stale` (the job
 * `sitemap-blocks-fold`).
 */
export class FoldSitemapBlocks1795402250000 implements MigrationInterface {
  name = 'FoldSitemapBlocks1795402250000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Blocks writers until the migration commits, so no write runs the old and the new triggers' rules half each.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`ALTER TABLE "sitemap_blocks" ADD "stale" integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`DROP FUNCTION "sitemap_block_recount"(integer)`);
    await queryRunner.query(`
      CREATE FUNCTION "sitemap_block_fold"("b" integer) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        "locked" smallint[];
        "newest" timestamptz;
      BEGIN
        -- Locks the block's rows: the writes in flight to them commit first and later ones wait; a row that a write
        -- inserts meanwhile keeps its own figures and its stale.
        SELECT array_agg(r."shard" ORDER BY r."shard") INTO "locked"
          FROM (SELECT s."shard" FROM "sitemap_blocks" s WHERE s."block" = "b" FOR UPDATE) r;
        IF "locked" IS NULL THEN
          RETURN;
        END IF;
        -- A newer snapshot than the lock's: it has every write the locked rows hold.
        SELECT max(r."updated_at") INTO "newest" FROM "blogs" r
          WHERE r."id" > "b"::int8 * ${BLOCK} AND r."id" <= ("b" + 1)::int8 * ${BLOCK} AND r."published_at" IS NOT NULL;
        UPDATE "sitemap_blocks" SET "stale" = 0,
            "updated_at" = CASE WHEN "shard" = "locked"[1] THEN "newest" END
          WHERE "block" = "b" AND "shard" = ANY ("locked");
      END $$`);
    await queryRunner.query(triggerFunction('sitemap_blocks_inserted', addRow('NEW', '1', '0')));
    await queryRunner.query(
      triggerFunction(
        'sitemap_blocks_updated',
        `IF NEW."published_at" IS NULL THEN
          ${addRow('OLD', '-1', '1')};
        ELSE
          ${addRow('NEW', `CASE WHEN OLD."published_at" IS NULL THEN 1 ELSE 0 END`, '0')};
        END IF`,
      ),
    );
    await queryRunner.query(triggerFunction('sitemap_blocks_deleted', addRow('OLD', '-1', '1')));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // The summary and triggers of `AddSitemapBlocks`, made anew from the blogs.
    const previous = new AddSitemapBlocks1795402200000();
    await queryRunner.query(`DROP FUNCTION "sitemap_block_fold"(integer)`);
    await queryRunner.query(`CREATE FUNCTION "sitemap_block_recount"("b" integer) RETURNS void LANGUAGE sql AS ''`);
    await previous.down(queryRunner);
    await previous.up(queryRunner);
  }
}

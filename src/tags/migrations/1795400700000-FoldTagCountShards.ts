import { MigrationInterface, QueryRunner } from 'typeorm';

/** Shards of a tag's counter before this migration, and the one a connection wrote (migration `CreateTags`). */
const SHARDS = 4;

/** The functions of the counting triggers (migration `CreateTags`): each adds a delta per tag of `source`. */
const COUNTING: Readonly<Record<string, string>> = {
  blogs_count_tags_inserted: `SELECT s."slug" AS "tag_slug", 1 AS "delta" FROM unnest(NEW."tag_slugs") AS s("slug")
    WHERE NEW."published_at" IS NOT NULL`,
  blogs_count_tags_deleted: `SELECT s."slug" AS "tag_slug", -1 AS "delta" FROM unnest(OLD."tag_slugs") AS s("slug")
    WHERE OLD."published_at" IS NOT NULL`,
  blogs_count_tags_updated: `SELECT s."slug" AS "tag_slug", -1 AS "delta" FROM unnest(OLD."tag_slugs") AS s("slug")
    WHERE OLD."published_at" IS NOT NULL
    UNION ALL SELECT s."slug", 1 FROM unnest(NEW."tag_slugs") AS s("slug") WHERE NEW."published_at" IS NOT NULL`,
};

/** The counting functions, adding to the row of each tag (`shard`: the shard column's value, or none). */
const countingFunctions = (shard?: string): string[] =>
  Object.entries(COUNTING).map(
    ([name, source]) => `
      CREATE OR REPLACE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "tag_counts" ("tag_slug", ${shard ? '"shard", ' : ''}"n")
        SELECT d."tag_slug", ${shard ? `${shard}, ` : ''}sum(d."delta") FROM (${source}) d
        GROUP BY d."tag_slug" HAVING sum(d."delta") <> 0 ORDER BY d."tag_slug"
        ON CONFLICT ("tag_slug"${shard ? ', "shard"' : ''}) DO UPDATE SET "n" = "tag_counts"."n" + EXCLUDED."n";
        RETURN NULL;
      END $$`,
  );

/**
 * One counter row per tag (it had up to four shards) and the index `IDX_tag_counts_n_tag_slug` in count order, from
 * which `GET /tags` reads its page without adding up every tag (docs/architecture.md, "Tags").
 */
export class FoldTagCountShards1795400700000 implements MigrationInterface {
  name = 'FoldTagCountShards1795400700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // Only the triggers on blogs write tag_counts: with blogs locked, no count moves until this commits.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`ALTER TABLE "tag_counts" DROP CONSTRAINT "PK_tag_counts"`);
    await queryRunner.query(
      `WITH "shards" AS (DELETE FROM "tag_counts" RETURNING "tag_slug", "n")
        INSERT INTO "tag_counts" ("tag_slug", "shard", "n") SELECT "tag_slug", 0, sum("n") FROM "shards" GROUP BY 1`,
    );
    await queryRunner.query(`ALTER TABLE "tag_counts" DROP COLUMN "shard"`);
    await queryRunner.query(`ALTER TABLE "tag_counts" ADD CONSTRAINT "PK_tag_counts" PRIMARY KEY ("tag_slug")`);
    await queryRunner.query(`CREATE INDEX "IDX_tag_counts_n_tag_slug" ON "tag_counts" ("n" DESC, "tag_slug")`);
    for (const statement of countingFunctions()) await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`DROP INDEX "public"."IDX_tag_counts_n_tag_slug"`);
    await queryRunner.query(`ALTER TABLE "tag_counts" DROP CONSTRAINT "PK_tag_counts"`);
    await queryRunner.query(`ALTER TABLE "tag_counts" ADD "shard" smallint NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE "tag_counts" ALTER COLUMN "shard" DROP DEFAULT`);
    await queryRunner.query(
      `ALTER TABLE "tag_counts" ADD CONSTRAINT "PK_tag_counts" PRIMARY KEY ("tag_slug", "shard")`,
    );
    for (const statement of countingFunctions(`pg_backend_pid() % ${SHARDS}`)) await queryRunner.query(statement);
  }
}

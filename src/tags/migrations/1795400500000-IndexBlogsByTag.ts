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
 * The triggers on `blogs` that keep `blog_tags`, each with its function's body and when it fires: row-level with a WHEN
 * that PostgreSQL evaluates before calling the function, so a blog without tags pays nothing.
 */
const TRIGGERS: Readonly<Record<string, { body: string; fires: string }>> = {
  blogs_index_tags_inserted: {
    body: insertTagsOf('NEW'),
    fires: `AFTER INSERT ON "blogs" FOR EACH ROW WHEN (cardinality(NEW."tag_slugs") > 0)`,
  },
  blogs_index_tags_deleted: {
    body: deleteTagsOf('OLD'),
    fires: `AFTER DELETE ON "blogs" FOR EACH ROW WHEN (cardinality(OLD."tag_slugs") > 0)`,
  },
  blogs_index_tags_updated: {
    body: `${deleteTagsOf('OLD')};\n${insertTagsOf('NEW')}`,
    fires: `AFTER UPDATE OF "tag_slugs", "created_at", "id" ON "blogs" FOR EACH ROW
      WHEN (OLD."tag_slugs" IS DISTINCT FROM NEW."tag_slugs" OR OLD."created_at" <> NEW."created_at" OR OLD."id" <> NEW."id")`,
  },
  blogs_index_tags_truncated: { body: `TRUNCATE "blog_tags"`, fires: `AFTER TRUNCATE ON "blogs" FOR EACH STATEMENT` },
};

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
    for (const [name, { body, fires }] of Object.entries(TRIGGERS)) {
      await queryRunner.query(`
        CREATE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          ${body};
          RETURN NULL;
        END $$`);
      await queryRunner.query(`CREATE TRIGGER "${name}" ${fires} EXECUTE FUNCTION "${name}"()`);
    }
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const name of Object.keys(TRIGGERS).reverse()) {
      await queryRunner.query(`DROP TRIGGER "${name}" ON "blogs"`);
      await queryRunner.query(`DROP FUNCTION "${name}"()`);
    }
    await queryRunner.query(`DROP TABLE "blog_tags"`);
  }
}

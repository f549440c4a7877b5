import { MigrationInterface, QueryRunner } from 'typeorm';
import { slugOf, suffixedSlug } from '../../common/text/slug';

/** Rows of `blog_counts` (migration `CountBlogs`). */
const BLOG_COUNT_SHARDS = 16;

/** Blogs read per batch while existing ones get their slugs. */
const SLUG_BATCH = 5_000;

/**
 * Publishing (docs/architecture.md, "Publishing and slugs"): `published_at` (null: a draft; existing blogs were
 * published when created), `slug` with `blog_slugs` (the earlier slugs of existing blogs, kept by a trigger),
 * `tag_slugs`, and the blog counter counting only blogs that are not drafts.
 */
export class AddPublishing1795400300000 implements MigrationInterface {
  name = 'AddPublishing1795400300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // No writer may add a blog between the slugs given below and the NOT NULL constraint.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`ALTER TABLE "blogs" ADD "published_at" TIMESTAMP(3) WITH TIME ZONE`);
    await queryRunner.query(`UPDATE "blogs" SET "published_at" = "created_at"`);
    await queryRunner.query(`ALTER TABLE "blogs" ADD "slug" text COLLATE "C"`);
    await queryRunner.query(`ALTER TABLE "blogs" ADD "tag_slugs" text array NOT NULL DEFAULT '{}'`);
    await this.giveSlugs(queryRunner);
    await queryRunner.query(`ALTER TABLE "blogs" ALTER COLUMN "slug" SET NOT NULL`);
    await queryRunner.query(`CREATE UNIQUE INDEX "IDX_blogs_slug" ON "blogs" ("slug")`);
    await queryRunner.query(`CREATE INDEX "IDX_blogs_published_at_id" ON "blogs" ("published_at", "id")`);
    // The newest-first page takes its keys from this index alone: it must tell which blogs are live.
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_created_at_id"`);
    await queryRunner.query(
      `CREATE INDEX "IDX_blogs_created_at_id" ON "blogs" ("created_at", "id") INCLUDE ("published_at")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_blogs_tag_slugs" ON "blogs" USING gin ("tag_slugs")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_blogs_owner_sub_created_at_id" ON "blogs" ("owner_sub", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "blog_slugs" ("slug" text COLLATE "C" NOT NULL, "blog_id" integer NOT NULL, CONSTRAINT "PK_blog_slugs" PRIMARY KEY ("slug"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_blog_slugs_blog_id" ON "blog_slugs" ("blog_id")`);
    await queryRunner.query(
      `ALTER TABLE "blog_slugs" ADD CONSTRAINT "FK_blog_slugs_blog_id" FOREIGN KEY ("blog_id") REFERENCES "blogs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // A slug a blog leaves keeps leading to it; the one it takes no longer leads to another blog.
    await queryRunner.query(`
      CREATE FUNCTION "blogs_slug_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "blog_slugs" WHERE "slug" = NEW."slug";
        INSERT INTO "blog_slugs" ("slug", "blog_id") VALUES (OLD."slug", NEW."id")
          ON CONFLICT ("slug") DO UPDATE SET "blog_id" = EXCLUDED."blog_id";
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_slug_changed" AFTER UPDATE OF "slug" ON "blogs" FOR EACH ROW
        WHEN (OLD."slug" <> NEW."slug") EXECUTE FUNCTION "blogs_slug_changed"()`,
    );
    // A writer that knows no slugs (a release before this one, during a rolling upgrade; a hand-written INSERT)
    // still stores a blog as it meant to: published when created, with the slug `blog-<id>` (a random tail in the
    // rare case that is taken).
    await queryRunner.query(`
      CREATE FUNCTION "blogs_default_slug"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW."published_at" := COALESCE(NEW."published_at", NEW."created_at");
        NEW."slug" := 'blog-' || NEW."id";
        IF EXISTS (SELECT FROM "blogs" WHERE "slug" = NEW."slug") OR EXISTS (SELECT FROM "blog_slugs" WHERE "slug" = NEW."slug") THEN
          NEW."slug" := NEW."slug" || '-' || substr(md5(random()::text), 1, 8);
        END IF;
        RETURN NEW;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_default_slug" BEFORE INSERT ON "blogs" FOR EACH ROW
        WHEN (NEW."slug" IS NULL) EXECUTE FUNCTION "blogs_default_slug"()`,
    );

    // The counter counts blogs that are not drafts; a draft published (or a blog made a draft) moves it by one.
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" + (SELECT count(*) FROM "inserted" WHERE "published_at" IS NOT NULL)
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" - (SELECT count(*) FROM "deleted" WHERE "published_at" IS NOT NULL)
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "blogs_count_drafted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" + CASE WHEN NEW."published_at" IS NULL THEN -1 ELSE 1 END
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_drafted" AFTER UPDATE OF "published_at" ON "blogs" FOR EACH ROW
        WHEN ((OLD."published_at" IS NULL) <> (NEW."published_at" IS NULL)) EXECUTE FUNCTION "blogs_count_drafted"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "blogs_default_slug" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_default_slug"()`);
    await queryRunner.query(`DROP TRIGGER "blogs_slug_changed" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_slug_changed"()`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_drafted" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_count_drafted"()`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" + (SELECT count(*) FROM "inserted")
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE "blog_counts" SET "n" = "n" - (SELECT count(*) FROM "deleted")
          WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
        RETURN NULL;
      END $$`);
    // Drafts were not counted: the counter again counts every blog.
    await queryRunner.query(
      `UPDATE "blog_counts" SET "n" = CASE WHEN "shard" = 0 THEN (SELECT count(*) FROM "blogs") ELSE 0 END`,
    );
    await queryRunner.query(`DROP TABLE "blog_slugs"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_owner_sub_created_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_tag_slugs"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_created_at_id"`);
    await queryRunner.query(`CREATE INDEX "IDX_blogs_created_at_id" ON "blogs" ("created_at", "id")`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_published_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_slug"`);
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "tag_slugs"`);
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "slug"`);
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "published_at"`);
  }

  /** Gives every existing blog the slug of its title, the lowest free suffix in the order of `id`. */
  private async giveSlugs(queryRunner: QueryRunner): Promise<void> {
    const taken = new Set<string>();
    for (let after = 0; ;) {
      const rows = (await queryRunner.query(
        `SELECT "id", "title" FROM "blogs" WHERE "id" > $1 ORDER BY "id" LIMIT ${SLUG_BATCH}`,
        [after],
      )) as { id: number; title: string }[];
      if (rows.length === 0) return;
      const slugs = rows.map(({ title }) => {
        const base = slugOf(title) ?? 'blog';
        let slug = base;
        for (let n = 2; taken.has(slug); n++) slug = suffixedSlug(base, n);
        taken.add(slug);
        return slug;
      });
      await queryRunner.query(
        `UPDATE "blogs" SET "slug" = v."slug" FROM unnest($1::int4[], $2::text[]) AS v("id", "slug") WHERE "blogs"."id" = v."id"`,
        [rows.map(({ id }) => id), slugs],
      );
      after = rows[rows.length - 1].id;
    }
  }
}

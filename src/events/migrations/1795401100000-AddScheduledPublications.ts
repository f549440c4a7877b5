import { MigrationInterface, QueryRunner } from 'typeorm';

/** The blog `row` as its owner reads it, by name so that no later column joins the API unasked (as `AddEvents` has it). */
const snapshotOf = (row: string): string =>
  `json_build_object('id', ${row}."id", 'title', ${row}."title", 'content', ${row}."content", 'author', ${row}."author",
  'created_at', ${row}."created_at", 'updated_at', ${row}."updated_at", 'version', ${row}."version",
  'published_at', ${row}."published_at", 'slug', ${row}."slug", 'tag_slugs', ${row}."tag_slugs")`;

/**
 * `blog.published` by the clock (docs/architecture.md, "Events"): `blog_publications` holds the blogs scheduled for a
 * later instant, kept by the events trigger; `publish_due_blogs()` (the events job, every second) takes those whose
 * instant has passed with `DELETE … RETURNING`, so that each makes its event once, whichever process runs it.
 */
export class AddScheduledPublications1795401100000 implements MigrationInterface {
  name = 'AddScheduledPublications1795401100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "blog_publications" (
      "blog_id" integer NOT NULL,
      "published_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      CONSTRAINT "PK_blog_publications" PRIMARY KEY ("blog_id"))`);
    await queryRunner.query(
      `CREATE INDEX "IDX_blog_publications_published_at" ON "blog_publications" ("published_at")`,
    );
    await queryRunner.query(`INSERT INTO "blog_publications" ("blog_id", "published_at")
      SELECT "id", "published_at" FROM "blogs" WHERE "published_at" > now() AND "published_at" < 'infinity'`);
    await queryRunner.query(`CREATE FUNCTION "blog_event_snapshot"(b "blogs") RETURNS json
      LANGUAGE sql STABLE AS $$ SELECT ${snapshotOf('b')} $$`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        snapshot json;
        change text := CASE TG_OP WHEN 'INSERT' THEN 'blog.created' ELSE 'blog.updated' END;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO "event_outbox" ("type", "blog")
          VALUES ('blog.deleted', json_build_object('id', OLD."id", 'slug', OLD."slug"));
          IF OLD."published_at" > now() THEN
            DELETE FROM "blog_publications" WHERE "blog_id" = OLD."id";
          END IF;
          RETURN NULL;
        END IF;
        snapshot := "blog_event_snapshot"(NEW);
        IF NEW."published_at" <= now()
          AND (TG_OP = 'INSERT' OR OLD."published_at" IS NULL OR OLD."published_at" > now()) THEN
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot), ('blog.published', snapshot);
        ELSE
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot);
        END IF;
        IF NEW."published_at" > now() AND NEW."published_at" < 'infinity' THEN
          INSERT INTO "blog_publications" ("blog_id", "published_at") VALUES (NEW."id", NEW."published_at")
          ON CONFLICT ("blog_id") DO UPDATE SET "published_at" = excluded."published_at";
        ELSIF TG_OP = 'UPDATE' AND OLD."published_at" > now() THEN
          DELETE FROM "blog_publications" WHERE "blog_id" = OLD."id";
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "publish_due_blogs"() RETURNS int4 LANGUAGE plpgsql AS $$
      DECLARE
        published int4;
      BEGIN
        WITH "due" AS (DELETE FROM "blog_publications" WHERE "published_at" <= now() RETURNING "blog_id")
        INSERT INTO "event_outbox" ("type", "blog")
        SELECT 'blog.published', "blog_event_snapshot"(b) FROM "due" d JOIN "blogs" b ON b."id" = d."blog_id"
        WHERE b."published_at" <= now()
        ORDER BY b."published_at", b."id";
        GET DIAGNOSTICS published = ROW_COUNT;
        RETURN published;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "publish_due_blogs"()`);
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "blogs_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        snapshot json;
        change text := CASE TG_OP WHEN 'INSERT' THEN 'blog.created' ELSE 'blog.updated' END;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO "event_outbox" ("type", "blog")
          VALUES ('blog.deleted', json_build_object('id', OLD."id", 'slug', OLD."slug"));
          RETURN NULL;
        END IF;
        snapshot := ${snapshotOf('NEW')};
        IF NEW."published_at" <= now()
          AND (TG_OP = 'INSERT' OR OLD."published_at" IS NULL OR OLD."published_at" > now()) THEN
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot), ('blog.published', snapshot);
        ELSE
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`DROP FUNCTION "blog_event_snapshot"("blogs")`);
    await queryRunner.query(`DROP TABLE "blog_publications"`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** `blogs_record_event()` as `AddScheduledPublications` wrote it, writing the outbox's payload column `column`. */
const recordEvent = (column: string): string => `
  CREATE OR REPLACE FUNCTION "blogs_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    snapshot json;
    change text := CASE TG_OP WHEN 'INSERT' THEN 'blog.created' ELSE 'blog.updated' END;
  BEGIN
    IF TG_OP = 'DELETE' THEN
      INSERT INTO "event_outbox" ("type", "${column}")
      VALUES ('blog.deleted', json_build_object('id', OLD."id", 'slug', OLD."slug"));
      IF OLD."published_at" > now() THEN
        DELETE FROM "blog_publications" WHERE "blog_id" = OLD."id";
      END IF;
      RETURN NULL;
    END IF;
    snapshot := "blog_event_snapshot"(NEW);
    IF NEW."published_at" <= now()
      AND (TG_OP = 'INSERT' OR OLD."published_at" IS NULL OR OLD."published_at" > now()) THEN
      INSERT INTO "event_outbox" ("type", "${column}") VALUES (change, snapshot), ('blog.published', snapshot);
    ELSE
      INSERT INTO "event_outbox" ("type", "${column}") VALUES (change, snapshot);
    END IF;
    IF NEW."published_at" > now() AND NEW."published_at" < 'infinity' THEN
      INSERT INTO "blog_publications" ("blog_id", "published_at") VALUES (NEW."id", NEW."published_at")
      ON CONFLICT ("blog_id") DO UPDATE SET "published_at" = excluded."published_at";
    ELSIF TG_OP = 'UPDATE' AND OLD."published_at" > now() THEN
      DELETE FROM "blog_publications" WHERE "blog_id" = OLD."id";
    END IF;
    RETURN NULL;
  END $$`;

/** `publish_due_blogs()` as `AddScheduledPublications` wrote it, writing the outbox's payload column `column`. */
const publishDue = (column: string): string => `
  CREATE OR REPLACE FUNCTION "publish_due_blogs"() RETURNS int4 LANGUAGE plpgsql AS $$
  DECLARE
    published int4;
  BEGIN
    WITH "due" AS (DELETE FROM "blog_publications" WHERE "published_at" <= now() RETURNING "blog_id")
    INSERT INTO "event_outbox" ("type", "${column}")
    SELECT 'blog.published', "blog_event_snapshot"(b) FROM "due" d JOIN "blogs" b ON b."id" = d."blog_id"
    WHERE b."published_at" <= now()
    ORDER BY b."published_at", b."id";
    GET DIAGNOSTICS published = ROW_COUNT;
    RETURN published;
  END $$`;

/**
 * The blog's events trigger and scheduled publication write the outbox's `data` (migration `NameEventPayloadData`,
 * in the same transaction), as before otherwise.
 */
export class WriteBlogEventsAsData1795401610000 implements MigrationInterface {
  name = 'WriteBlogEventsAsData1795401610000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(recordEvent('data'));
    await queryRunner.query(publishDue('data'));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(recordEvent('blog'));
    await queryRunner.query(publishDue('blog'));
  }
}

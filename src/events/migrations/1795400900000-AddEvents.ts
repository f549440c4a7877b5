import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The transactional outbox and the change feed (docs/architecture.md, "Events"). A trigger on `blogs` writes each
 * change's events into `event_outbox` in the writer's transaction; `relay_events()` moves committed ones into `events`,
 * numbering them in the order it finds them. One relay at a time (it locks `events`), so ids only grow and a reader
 * that has seen id n never finds an id below n appear later.
 */
export class AddEvents1795400900000 implements MigrationInterface {
  name = 'AddEvents1795400900000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "event_outbox" (
      "seq" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "type" text NOT NULL,
      "occurred_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "blog" json NOT NULL,
      CONSTRAINT "PK_event_outbox" PRIMARY KEY ("seq"))`);
    await queryRunner.query(`CREATE TABLE "events" (
      "id" bigint NOT NULL,
      "type" text NOT NULL,
      "occurred_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "blog" json NOT NULL,
      CONSTRAINT "PK_events" PRIMARY KEY ("id"))`);
    // The blog as its owner reads it, by name so that no later column joins the API unasked; a deleted one by id and
    // slug. A blog becomes live when it is published at or before the transaction's instant and was not before.
    await queryRunner.query(`
      CREATE FUNCTION "blogs_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        snapshot json;
        change text := CASE TG_OP WHEN 'INSERT' THEN 'blog.created' ELSE 'blog.updated' END;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          INSERT INTO "event_outbox" ("type", "blog")
          VALUES ('blog.deleted', json_build_object('id', OLD."id", 'slug', OLD."slug"));
          RETURN NULL;
        END IF;
        snapshot := json_build_object('id', NEW."id", 'title', NEW."title", 'content', NEW."content",
          'author', NEW."author", 'created_at', NEW."created_at", 'updated_at', NEW."updated_at",
          'version', NEW."version", 'published_at', NEW."published_at", 'slug', NEW."slug",
          'tag_slugs', NEW."tag_slugs");
        IF NEW."published_at" <= now()
          AND (TG_OP = 'INSERT' OR OLD."published_at" IS NULL OR OLD."published_at" > now()) THEN
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot), ('blog.published', snapshot);
        ELSE
          INSERT INTO "event_outbox" ("type", "blog") VALUES (change, snapshot);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "blogs_record_event" AFTER INSERT OR UPDATE OR DELETE ON "blogs"
      FOR EACH ROW EXECUTE FUNCTION "blogs_record_event"()`);
    // Each statement of a PL/pgSQL function reads a snapshot of its own: the move sees the relay before it.
    await queryRunner.query(`
      CREATE FUNCTION "relay_events"("batch" int4) RETURNS int4 LANGUAGE plpgsql AS $$
      DECLARE
        moved int4;
      BEGIN
        LOCK TABLE "events" IN EXCLUSIVE MODE;
        WITH "batch" AS (
          DELETE FROM "event_outbox" WHERE "seq" IN (SELECT "seq" FROM "event_outbox" ORDER BY "seq" LIMIT "batch")
          RETURNING *)
        INSERT INTO "events" ("id", "type", "occurred_at", "blog")
        SELECT (SELECT coalesce(max("id"), 0) FROM "events") + row_number() OVER (ORDER BY b."seq"), b."type",
          b."occurred_at", b."blog"
        FROM "batch" b;
        GET DIAGNOSTICS moved = ROW_COUNT;
        RETURN moved;
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "relay_events"(int4)`);
    await queryRunner.query(`DROP TRIGGER "blogs_record_event" ON "blogs"`);
    await queryRunner.query(`DROP FUNCTION "blogs_record_event"()`);
    await queryRunner.query(`DROP TABLE "events"`);
    await queryRunner.query(`DROP TABLE "event_outbox"`);
  }
}

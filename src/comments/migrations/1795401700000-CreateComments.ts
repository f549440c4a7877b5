import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Comments of blogs (docs/architecture.md, "Comments"): `comments`, deleted with their blog; `comment_counts`, the
 * number of each blog's comments kept by statement triggers; and the `comment.created` / `comment.deleted` events,
 * written by a row trigger in the writer's transaction (none for the comments a blog's deletion takes with it).
 */
export class CreateComments1795401700000 implements MigrationInterface {
  name = 'CreateComments1795401700000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "comments" (
      "id" SERIAL NOT NULL,
      "blog_id" integer NOT NULL,
      "author" text NOT NULL,
      "body" text NOT NULL,
      "owner_sub" text NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_comments" PRIMARY KEY ("id"),
      CONSTRAINT "FK_comments_blog_id" FOREIGN KEY ("blog_id") REFERENCES "blogs"("id") ON DELETE CASCADE)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_comments_blog_id_created_at_id" ON "comments" ("blog_id", "created_at", "id")`,
    );
    await queryRunner.query(`CREATE TABLE "comment_counts" (
      "blog_id" integer NOT NULL,
      "n" bigint NOT NULL DEFAULT 0,
      CONSTRAINT "PK_comment_counts" PRIMARY KEY ("blog_id"),
      CONSTRAINT "FK_comment_counts_blog_id" FOREIGN KEY ("blog_id") REFERENCES "blogs"("id") ON DELETE CASCADE)`);
    await queryRunner.query(`
      CREATE FUNCTION "comments_count_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO "comment_counts" ("blog_id", "n")
        SELECT "blog_id", count(*) FROM "inserted" GROUP BY "blog_id" ORDER BY "blog_id"
        ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + excluded."n";
        RETURN NULL;
      END $$`);
    // A blog's deletion takes its counter with it: only a DELETE of comments themselves counts down.
    await queryRunner.query(`
      CREATE FUNCTION "comments_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF pg_trigger_depth() > 1 THEN
          RETURN NULL;
        END IF;
        UPDATE "comment_counts" c SET "n" = c."n" - d."n"
        FROM (SELECT "blog_id", count(*) AS "n" FROM "deleted" GROUP BY "blog_id") d WHERE c."blog_id" = d."blog_id";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "comments_count_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "comment_counts";
        RETURN NULL;
      END $$`);
    // The comment by column name (the owner left out); a deleted one by id and blog id. A DELETE run by a trigger
    // (the cascade of a blog's deletion) writes none: the blog's `blog.deleted` stands for its comments.
    await queryRunner.query(`
      CREATE FUNCTION "comments_record_event"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO "event_outbox" ("type", "data") VALUES ('comment.created', json_build_object('id', NEW."id",
            'blog_id', NEW."blog_id", 'author', NEW."author", 'body', NEW."body", 'created_at', NEW."created_at"));
        ELSIF pg_trigger_depth() = 1 THEN
          INSERT INTO "event_outbox" ("type", "data")
          VALUES ('comment.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "comments_count_inserted" AFTER INSERT ON "comments" REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT EXECUTE FUNCTION "comments_count_inserted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "comments_count_deleted" AFTER DELETE ON "comments" REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT EXECUTE FUNCTION "comments_count_deleted"()`,
    );
    await queryRunner.query(
      `CREATE TRIGGER "comments_count_truncated" AFTER TRUNCATE ON "comments" FOR EACH STATEMENT EXECUTE FUNCTION "comments_count_truncated"()`,
    );
    await queryRunner.query(`CREATE TRIGGER "comments_record_event" AFTER INSERT OR DELETE ON "comments"
      FOR EACH ROW EXECUTE FUNCTION "comments_record_event"()`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "comment_counts"`);
    await queryRunner.query(`DROP TABLE "comments"`);
    await queryRunner.query(`DROP FUNCTION "comments_record_event"()`);
    await queryRunner.query(`DROP FUNCTION "comments_count_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "comments_count_deleted"()`);
    await queryRunner.query(`DROP FUNCTION "comments_count_inserted"()`);
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Comments of blogs (docs/api.md, "Comments"): `comments`, deleted with their blog; `comment_counts`, the
 * number of each blog's comments; and the `comment.created` / `comment.deleted` events, both kept by a row trigger in
 * the writer's transaction (neither for the comments a blog's deletion takes with it).
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
    // One row trigger keeps the counter and writes the events. A blog's deletion takes its comments and its counter
    // without either: when its cascade deletes them, the blog is no longer there.
    await queryRunner.query(`
      CREATE FUNCTION "comments_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO "comment_counts" ("blog_id", "n") VALUES (NEW."blog_id", 1)
          ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + 1;
          INSERT INTO "event_outbox" ("type", "data") VALUES ('comment.created', json_build_object('id', NEW."id",
            'blog_id', NEW."blog_id", 'author', NEW."author", 'body', NEW."body", 'created_at', NEW."created_at"));
        ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
          UPDATE "comment_counts" SET "n" = "n" - 1 WHERE "blog_id" = OLD."blog_id";
          INSERT INTO "event_outbox" ("type", "data")
          VALUES ('comment.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION "comments_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM "comment_counts";
        RETURN NULL;
      END $$`);
    await queryRunner.query(`CREATE TRIGGER "comments_changed" AFTER INSERT OR DELETE ON "comments"
      FOR EACH ROW EXECUTE FUNCTION "comments_changed"()`);
    await queryRunner.query(
      `CREATE TRIGGER "comments_truncated" AFTER TRUNCATE ON "comments" FOR EACH STATEMENT EXECUTE FUNCTION "comments_truncated"()`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "comment_counts"`);
    await queryRunner.query(`DROP TABLE "comments"`);
    await queryRunner.query(`DROP FUNCTION "comments_truncated"()`);
    await queryRunner.query(`DROP FUNCTION "comments_changed"()`);
  }
}

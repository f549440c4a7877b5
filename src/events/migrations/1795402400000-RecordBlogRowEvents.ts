import { MigrationInterface, QueryRunner } from 'typeorm';

/** The comments' events as `CreateComments` wrote them in `comments_changed()`, on insert and on delete. */
const COMMENT_CREATED = `INSERT INTO "event_outbox" ("type", "data") VALUES ('comment.created', json_build_object(
  'id', NEW."id", 'blog_id', NEW."blog_id", 'author', NEW."author", 'body', NEW."body", 'created_at', NEW."created_at"));`;
const COMMENT_DELETED = `INSERT INTO "event_outbox" ("type", "data")
  VALUES ('comment.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));`;

/** `comments_changed()`: the comments' counter, then `created` on insert and `deleted` on delete. */
const commentsChanged = (created = '', deleted = ''): string => `
  CREATE OR REPLACE FUNCTION "comments_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO "comment_counts" ("blog_id", "n") VALUES (NEW."blog_id", 1)
      ON CONFLICT ("blog_id") DO UPDATE SET "n" = "comment_counts"."n" + 1;
      ${created}
    ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
      UPDATE "comment_counts" SET "n" = "n" - 1 WHERE "blog_id" = OLD."blog_id";
      ${deleted}
    END IF;
    RETURN NULL;
  END $$`;

/**
 * The events of rows that belong to a blog (docs/architecture.md, "Events"), one trigger function for every such
 * table: `record_blog_row_event('<resource>', '<column left out>', …)` writes `<resource>.created` with the row's
 * columns but those left out, and `<resource>.deleted` with `{id, blog_id}`; none for the rows a blog's deletion takes
 * with it (its `blog.deleted` stands for them). The comments' events move onto it, their counter stays their own.
 */
export class RecordBlogRowEvents1795402400000 implements MigrationInterface {
  name = 'RecordBlogRowEvents1795402400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "record_blog_row_event"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO "event_outbox" ("type", "data")
          VALUES (TG_ARGV[0] || '.created', (to_jsonb(NEW) - TG_ARGV[1:])::json);
        ELSIF EXISTS (SELECT FROM "blogs" WHERE "id" = OLD."blog_id") THEN
          INSERT INTO "event_outbox" ("type", "data")
          VALUES (TG_ARGV[0] || '.deleted', json_build_object('id', OLD."id", 'blog_id', OLD."blog_id"));
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(commentsChanged());
    await queryRunner.query(`CREATE TRIGGER "comments_record_event" AFTER INSERT OR DELETE ON "comments"
      FOR EACH ROW EXECUTE FUNCTION "record_blog_row_event"('comment', 'owner_sub')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "comments_record_event" ON "comments"`);
    await queryRunner.query(commentsChanged(COMMENT_CREATED, COMMENT_DELETED));
    await queryRunner.query(`DROP FUNCTION "record_blog_row_event"()`);
  }
}

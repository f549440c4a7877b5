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
 * The comments' events come from `record_blog_row_event` (migration `RecordBlogRowEvents`), their payload every column
 * but `owner_sub`; `comments_changed()` keeps their counter alone.
 */
export class RecordCommentEvents1795402410000 implements MigrationInterface {
  name = 'RecordCommentEvents1795402410000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(commentsChanged());
    await queryRunner.query(`CREATE TRIGGER "comments_record_event" AFTER INSERT OR DELETE ON "comments"
      FOR EACH ROW EXECUTE FUNCTION "record_blog_row_event"('comment', 'owner_sub')`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER "comments_record_event" ON "comments"`);
    await queryRunner.query(commentsChanged(COMMENT_CREATED, COMMENT_DELETED));
  }
}

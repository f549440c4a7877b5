import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The events of rows that belong to a blog (docs/architecture.md, "Events"), one trigger function for every such
 * table: `record_blog_row_event('<resource>', '<column left out>', …)` writes `<resource>.created` with the row's
 * columns but those left out, and `<resource>.deleted` with `{id, blog_id}`; none for the rows a blog's deletion takes
 * with it (its `blog.deleted` stands for them).
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
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "record_blog_row_event"()`);
  }
}

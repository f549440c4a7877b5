import { MigrationInterface, QueryRunner } from 'typeorm';
import { ALL } from './1795402100000-AddBlogRevisions';

/** The insert trigger's function: a new blog's revision 1, with nothing before it to read or prune. */
const FIRST_REVISION = `CREATE FUNCTION "blogs_first_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO "blog_revisions"
      ("blog_id", "version", "seq", "title", "content", "author", "tag_slugs", "created_at", "changed")
    VALUES (NEW."id", NEW."version", 1, NEW."title", NEW."content", NEW."author", NEW."tag_slugs", NEW."created_at",
      ${ALL});
    RETURN NULL;
  END $$`;

/** The insert trigger on `blogs`, running `fn`. */
const createdTrigger = (fn: string): string[] => [
  'DROP TRIGGER "blogs_revision_created" ON "blogs"',
  `CREATE TRIGGER "blogs_revision_created" AFTER INSERT ON "blogs" FOR EACH ROW EXECUTE FUNCTION "${fn}"()`,
];

/**
 * A create writes its blog's first revision alone (`blogs_first_revision`), without the update's probe of the newest
 * revision and its prune, which find nothing for a new blog (revisions go with their blog): half the trigger's time
 * (docs/performance.md, "Creates of one title").
 */
export class WriteFirstRevisionsByInsert1795402600000 implements MigrationInterface {
  name = 'WriteFirstRevisionsByInsert1795402600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of [FIRST_REVISION, ...createdTrigger('blogs_first_revision')])
      await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of [...createdTrigger('blogs_keep_revision'), 'DROP FUNCTION "blogs_first_revision"()'])
      await queryRunner.query(statement);
  }
}

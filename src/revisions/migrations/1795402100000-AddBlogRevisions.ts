import { MigrationInterface, QueryRunner } from 'typeorm';

/** The four properties a revision keeps, as `changed` names them, and their columns. */
const KEPT = [
  ['title', 'title'],
  ['content', 'content'],
  ['author', 'author'],
  ['tags', 'tag_slugs'],
] as const;

/** The tables: revisions, deleted with their blog, and the one row of settings the triggers read. */
const TABLES = [
  `CREATE TABLE "blog_revisions" ("blog_id" integer NOT NULL, "version" integer NOT NULL, "seq" integer NOT NULL,
    "title" text NOT NULL, "content" text NOT NULL, "author" text NOT NULL, "tag_slugs" text array NOT NULL,
    "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "changed" text array NOT NULL,
    CONSTRAINT "PK_blog_revisions" PRIMARY KEY ("blog_id", "version"),
    CONSTRAINT "FK_blog_revisions_blog_id" FOREIGN KEY ("blog_id") REFERENCES "blogs"("id") ON DELETE CASCADE)`,
  `CREATE UNIQUE INDEX "IDX_blog_revisions_blog_id_seq" ON "blog_revisions" ("blog_id", "seq")`,
  `CREATE TABLE "revision_settings" ("id" boolean NOT NULL DEFAULT true, "kept" integer NOT NULL DEFAULT 50,
    CONSTRAINT "PK_revision_settings" PRIMARY KEY ("id"), CONSTRAINT "CHK_revision_settings_one" CHECK ("id"),
    CONSTRAINT "CHK_revision_settings_kept" CHECK ("kept" BETWEEN 1 AND 1000))`,
  `INSERT INTO "revision_settings" DEFAULT VALUES`,
];

/** SQL: `changed` of a revision that has none before it. */
export const ALL = `ARRAY[${KEPT.map(([name]) => `'${name}'`).join(', ')}]`;

/** SQL: the names of the properties whose columns differ between the row `before` and `NEW`. */
const changedSince = (before: string): string =>
  `array_remove(ARRAY[${KEPT.map(
    ([name, column]) => `CASE WHEN NEW."${column}" IS DISTINCT FROM ${before}."${column}" THEN '${name}' END`,
  ).join(', ')}], NULL)`;

/**
 * The trigger function: keeps `NEW` as the blog's next revision, then deletes those past the newest `kept`. `seq`
 * numbers a blog's revisions 1, 2, … without gaps, so that the prune deletes by one index range, whatever the blog's
 * history (docs/performance.md, "Revisions"). A write that changed the text but kept the version (SQL outside the
 * service) rewrites that version's revision instead of adding one.
 */
const KEEP_REVISION = `CREATE FUNCTION "blogs_keep_revision"() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    "v_previous" integer;
    "v_previous_version" integer;
  BEGIN
    SELECT r."seq", r."version" INTO "v_previous", "v_previous_version" FROM "blog_revisions" r
      WHERE r."blog_id" = NEW."id" ORDER BY r."seq" DESC LIMIT 1;
    IF "v_previous_version" = NEW."version" THEN
      UPDATE "blog_revisions" r SET "title" = NEW."title", "content" = NEW."content", "author" = NEW."author",
        "tag_slugs" = NEW."tag_slugs", "created_at" = NEW."updated_at",
        "changed" = coalesce((SELECT ${changedSince('p')} FROM "blog_revisions" p
          WHERE p."blog_id" = NEW."id" AND p."seq" = "v_previous" - 1), ${ALL})
        WHERE r."blog_id" = NEW."id" AND r."seq" = "v_previous";
      RETURN NULL;
    END IF;
    INSERT INTO "blog_revisions"
      ("blog_id", "version", "seq", "title", "content", "author", "tag_slugs", "created_at", "changed")
    VALUES (NEW."id", NEW."version", coalesce("v_previous", 0) + 1, NEW."title", NEW."content", NEW."author",
      NEW."tag_slugs", CASE WHEN TG_OP = 'INSERT' THEN NEW."created_at" ELSE NEW."updated_at" END,
      CASE WHEN TG_OP = 'INSERT' OR "v_previous" IS NULL THEN ${ALL} ELSE ${changedSince('OLD')} END);
    DELETE FROM "blog_revisions" WHERE "blog_id" = NEW."id"
      AND "seq" <= coalesce("v_previous", 0) + 1 - (SELECT "kept" FROM "revision_settings");
    RETURN NULL;
  END $$`;

/** The triggers: every insert, and each update that changes one of the four properties. */
const TRIGGERS = [
  `CREATE TRIGGER "blogs_revision_created" AFTER INSERT ON "blogs" FOR EACH ROW EXECUTE FUNCTION "blogs_keep_revision"()`,
  `CREATE TRIGGER "blogs_revision_updated" AFTER UPDATE OF ${KEPT.map(([, column]) => `"${column}"`).join(', ')}
    ON "blogs" FOR EACH ROW WHEN (${KEPT.map(([, column]) => `OLD."${column}" IS DISTINCT FROM NEW."${column}"`).join(' OR ')})
    EXECUTE FUNCTION "blogs_keep_revision"()`,
];

/** Every blog's current text becomes its first revision. */
const FIRST_REVISIONS = `INSERT INTO "blog_revisions"
    ("blog_id", "version", "seq", "title", "content", "author", "tag_slugs", "created_at", "changed")
  SELECT "id", "version", 1, "title", "content", "author", "tag_slugs", "updated_at", ${ALL} FROM "blogs"`;

/**
 * Revisions of blogs (docs/api.md, "Revisions"; docs/architecture.md, "Revisions"): `blog_revisions`, deleted with
 * their blog, written and pruned by row triggers on `blogs` in the writer's transaction; `revision_settings`, the
 * number of revisions kept per blog (`REVISIONS_KEPT`, written at start-up). Every blog's current text becomes its
 * first revision.
 */
export class AddBlogRevisions1795402100000 implements MigrationInterface {
  name = 'AddBlogRevisions1795402100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of [...TABLES, KEEP_REVISION, ...TRIGGERS, FIRST_REVISIONS])
      await queryRunner.query(statement);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    for (const statement of [
      'DROP TRIGGER "blogs_revision_updated" ON "blogs"',
      'DROP TRIGGER "blogs_revision_created" ON "blogs"',
      'DROP FUNCTION "blogs_keep_revision"()',
      'DROP TABLE "revision_settings"',
      'DROP TABLE "blog_revisions"',
    ]) {
      await queryRunner.query(statement);
    }
  }
}

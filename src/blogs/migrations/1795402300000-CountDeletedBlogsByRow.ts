import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows of `blog_counts`; each connection adds to the row of its backend pid modulo this. */
const BLOG_COUNT_SHARDS = 16;

/** A trigger of the blog counter (`blogs_count_<name>`): its event, the sign of its blogs and the row it reads. */
const COUNTER_TRIGGERS = {
  inserted: { event: 'INSERT', sign: '+', row: 'NEW' },
  deleted: { event: 'DELETE', sign: '-', row: 'OLD' },
} as const;

/**
 * The blog counter's delete trigger becomes row-level under a `WHEN`, as the author counter's is: a delete of a draft,
 * or one that deletes nothing, writes no counter row, and no delete keeps a transition table (docs/performance.md,
 * "What a delete pays").
 */
export class CountDeletedBlogsByRow1795402300000 implements MigrationInterface {
  name = 'CountDeletedBlogsByRow1795402300000';

  /**
   * `blogs_count_<trigger>` anew, writers blocked until the migration commits (so no write is counted by both triggers
   * or by neither): by `row`, once per blog that is no draft under a `WHEN`; by `statement`, once per statement from
   * its transition table.
   */
  static async countBlogs(
    queryRunner: QueryRunner,
    trigger: keyof typeof COUNTER_TRIGGERS,
    by: 'row' | 'statement',
  ): Promise<void> {
    const { event, sign, row } = COUNTER_TRIGGERS[trigger];
    const [blogs, when] =
      by === 'row'
        ? ['1', `FOR EACH ROW WHEN (${row}."published_at" IS NOT NULL)`]
        : [
            `(SELECT count(*) FROM "${trigger}" WHERE "published_at" IS NOT NULL)`,
            `REFERENCING ${row} TABLE AS "${trigger}" FOR EACH STATEMENT`,
          ];
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_${trigger}" ON "blogs"`);
    await queryRunner.query(`
  CREATE OR REPLACE FUNCTION "blogs_count_${trigger}"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE "blog_counts" SET "n" = "n" ${sign} ${blogs} WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
    RETURN NULL;
  END $$`);
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_${trigger}" AFTER ${event} ON "blogs" ${when} EXECUTE FUNCTION "blogs_count_${trigger}"()`,
    );
  }

  public async up(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.countBlogs(queryRunner, 'deleted', 'row');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.countBlogs(queryRunner, 'deleted', 'statement');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/** Rows of `blog_counts`; each connection adds to the row of its backend pid modulo this. */
const BLOG_COUNT_SHARDS = 16;

/** SQL: `blogs_count_deleted`, subtracting `deleted` (an expression) from this connection's row of the counter. */
const countDeleted = (deleted: string): string => `
  CREATE OR REPLACE FUNCTION "blogs_count_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    UPDATE "blog_counts" SET "n" = "n" - ${deleted} WHERE "shard" = pg_backend_pid() % ${BLOG_COUNT_SHARDS};
    RETURN NULL;
  END $$`;

/**
 * The blog counter's delete trigger becomes row-level under a `WHEN`, as the author counter's is: a delete of a draft,
 * or one that deletes nothing, writes no counter row, and no delete keeps a transition table (docs/performance.md,
 * "What a delete pays").
 */
export class CountDeletedBlogsByRow1795402300000 implements MigrationInterface {
  name = 'CountDeletedBlogsByRow1795402300000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await this.replaceTrigger(queryRunner, '1', `FOR EACH ROW WHEN (OLD."published_at" IS NOT NULL)`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await this.replaceTrigger(
      queryRunner,
      `(SELECT count(*) FROM "deleted" WHERE "published_at" IS NOT NULL)`,
      `REFERENCING OLD TABLE AS "deleted" FOR EACH STATEMENT`,
    );
  }

  /** `blogs_count_deleted` anew: its function subtracting `deleted`, its trigger fired `when` says. */
  private async replaceTrigger(queryRunner: QueryRunner, deleted: string, when: string): Promise<void> {
    // Blocks writers until the migration commits, so no delete is counted by both triggers or by neither.
    await queryRunner.query(`LOCK TABLE "blogs" IN SHARE ROW EXCLUSIVE MODE`);
    await queryRunner.query(`DROP TRIGGER "blogs_count_deleted" ON "blogs"`);
    await queryRunner.query(countDeleted(deleted));
    await queryRunner.query(
      `CREATE TRIGGER "blogs_count_deleted" AFTER DELETE ON "blogs" ${when} EXECUTE FUNCTION "blogs_count_deleted"()`,
    );
  }
}

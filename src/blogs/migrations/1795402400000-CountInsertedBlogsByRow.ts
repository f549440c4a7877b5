import { MigrationInterface, QueryRunner } from 'typeorm';
import { CountDeletedBlogsByRow1795402300000 } from './1795402300000-CountDeletedBlogsByRow';

/**
 * The blog counter's insert trigger becomes row-level under a `WHEN`, as its delete trigger is: a create of a draft
 * writes no counter row, and no create keeps a transition table (docs/performance.md, "Creates of one title"). A
 * statement inserting many blogs updates the row once per blog.
 */
export class CountInsertedBlogsByRow1795402400000 implements MigrationInterface {
  name = 'CountInsertedBlogsByRow1795402400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.replaceCounterTrigger(
      queryRunner,
      'inserted',
      '1',
      `FOR EACH ROW WHEN (NEW."published_at" IS NOT NULL)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.replaceCounterTrigger(
      queryRunner,
      'inserted',
      `(SELECT count(*) FROM "inserted" WHERE "published_at" IS NOT NULL)`,
      `REFERENCING NEW TABLE AS "inserted" FOR EACH STATEMENT`,
    );
  }
}

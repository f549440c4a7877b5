import { MigrationInterface, QueryRunner } from 'typeorm';
import { CountDeletedBlogsByRow1795402300000 } from './1795402300000-CountDeletedBlogsByRow';

/**
 * The blog counter's insert trigger becomes row-level under a `WHEN`, as its delete trigger is: a create of a draft
 * writes no counter row, and no create keeps a transition table (docs/performance.md, "Creates of one title"). A
 * statement inserting many blogs updates the row once per blog (docs/architecture.md, "The blog counter").
 */
export class CountInsertedBlogsByRow1795402500000 implements MigrationInterface {
  name = 'CountInsertedBlogsByRow1795402500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.countBlogs(queryRunner, 'inserted', 'row');
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await CountDeletedBlogsByRow1795402300000.countBlogs(queryRunner, 'inserted', 'statement');
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds `blogs.version`, the source of each blog's entity tag (RFC 9110 §8.8.3). Existing blogs
 * start at version 1. A constant default adds the column without rewriting the table
 * (PostgreSQL 11 and later), so the migration is quick on a large table.
 */
export class AddBlogVersion1795400100000 implements MigrationInterface {
  name = 'AddBlogVersion1795400100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blogs" ADD "version" integer NOT NULL DEFAULT '1'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "version"`);
  }
}

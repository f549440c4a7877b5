import { MigrationInterface, QueryRunner } from 'typeorm';

/** Adds `blogs.version`, the source of each blog's entity tag; existing blogs start at 1. */
export class AddBlogVersion1795400100000 implements MigrationInterface {
  name = 'AddBlogVersion1795400100000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blogs" ADD "version" integer NOT NULL DEFAULT '1'`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "version"`);
  }
}

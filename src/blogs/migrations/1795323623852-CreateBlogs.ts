import { MigrationInterface, QueryRunner } from 'typeorm';

/** Creates `blogs` and the (created_at, id) index that serves the newest-first listing. */
export class CreateBlogs1795323623852 implements MigrationInterface {
  name = 'CreateBlogs1795323623852';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "blogs" ("id" SERIAL NOT NULL, "title" text NOT NULL, "content" text NOT NULL, "author" text NOT NULL, "owner_sub" text NOT NULL, "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "PK_e113335f11c926da929a625f118" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_blogs_created_at_id" ON "blogs" ("created_at", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_created_at_id"`);
    await queryRunner.query(`DROP TABLE "blogs"`);
  }
}

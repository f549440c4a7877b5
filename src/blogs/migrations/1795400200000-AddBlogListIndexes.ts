import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Full-text search and the list orders (docs/architecture.md, "The list queries"): the generated
 * `search_vector` with its GIN index, and B-trees for each order, alone and within one author, each ending in `id`.
 */
export class AddBlogListIndexes1795400200000 implements MigrationInterface {
  name = 'AddBlogListIndexes1795400200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "blogs" ADD "search_vector" tsvector GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, "title" || ' ' || "content")) STORED NOT NULL`,
    );
    // Where TypeORM keeps the expression of a generated column, which the catalog writes otherwise.
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS "typeorm_metadata" ("type" varchar NOT NULL, "database" varchar, "schema" varchar, "table" varchar, "name" varchar, "value" text)`,
    );
    await queryRunner.query(
      `INSERT INTO "typeorm_metadata" ("database", "schema", "table", "type", "name", "value") VALUES (current_database(), current_schema(), 'blogs', 'GENERATED_COLUMN', 'search_vector', $1)`,
      [`to_tsvector('simple'::regconfig, "title" || ' ' || "content")`],
    );
    await queryRunner.query(`CREATE INDEX "IDX_blogs_search_vector" ON "blogs" USING gin ("search_vector")`);
    await queryRunner.query(`CREATE INDEX "IDX_blogs_author_created_at_id" ON "blogs" ("author", "created_at", "id")`);
    await queryRunner.query(`CREATE INDEX "IDX_blogs_author_updated_at_id" ON "blogs" ("author", "updated_at", "id")`);
    await queryRunner.query(
      `CREATE INDEX "IDX_blogs_author_title_c_id" ON "blogs" ("author", "title" COLLATE "C", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_blogs_updated_at_id" ON "blogs" ("updated_at", "id")`);
    await queryRunner.query(`CREATE INDEX "IDX_blogs_title_c_id" ON "blogs" ("title" COLLATE "C", "id")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_title_c_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_updated_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_author_title_c_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_author_updated_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_author_created_at_id"`);
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_search_vector"`);
    await queryRunner.query(
      `DELETE FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN' AND "database" = current_database() AND "schema" = current_schema() AND "table" = 'blogs' AND "name" = 'search_vector'`,
    );
    await queryRunner.query(`ALTER TABLE "blogs" DROP COLUMN "search_vector"`);
  }
}

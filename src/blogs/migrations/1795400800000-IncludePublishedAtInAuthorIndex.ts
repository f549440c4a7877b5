import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `IDX_blogs_author_created_at_id` `INCLUDE`s `published_at`, so that an author's live total is counted from the index
 * alone rather than from a heap page per blog (docs/performance.md, "An author's total from the index").
 */
export class IncludePublishedAtInAuthorIndex1795400800000 implements MigrationInterface {
  name = 'IncludePublishedAtInAuthorIndex1795400800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await this.replace(queryRunner, `INCLUDE ("published_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await this.replace(queryRunner, '');
  }

  /** Builds the index anew (`include`: its INCLUDE clause) while readers go on, then swaps it for the old one. */
  private async replace(queryRunner: QueryRunner, include: string): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_blogs_author_created_at_id_new" ON "blogs" ("author", "created_at", "id") ${include}`,
    );
    await queryRunner.query(`DROP INDEX "public"."IDX_blogs_author_created_at_id"`);
    await queryRunner.query(
      `ALTER INDEX "public"."IDX_blogs_author_created_at_id_new" RENAME TO "IDX_blogs_author_created_at_id"`,
    );
  }
}

import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `scheduled_blogs(at)`: the blogs scheduled at the instant `at` (`published_at` after it), as rows (`id`,
 * `tag_slugs`). Statements that subtract scheduled blogs read them through it, so that their own plan stays generic
 * at any table size (docs/performance.md, "Scheduled blogs behind a function").
 */
export class AddScheduledBlogs1795400600000 implements MigrationInterface {
  name = 'AddScheduledBlogs1795400600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "scheduled_blogs"("at" timestamptz) RETURNS TABLE ("id" int4, "tag_slugs" text[])
        LANGUAGE plpgsql STABLE PARALLEL SAFE ROWS 10 SET plan_cache_mode = force_generic_plan AS $$
      BEGIN
        RETURN QUERY SELECT b."id", b."tag_slugs" FROM "blogs" b
          WHERE b."published_at" > "at" AND b."published_at" < 'infinity';
      END $$`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "scheduled_blogs"(timestamptz)`);
  }
}

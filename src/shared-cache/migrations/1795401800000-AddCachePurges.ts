import { MigrationInterface, QueryRunner } from 'typeorm';

/** Purges of shared caches (docs/operations.md, "Behind a cache or CDN"): how far each cache is purged. */
export class AddCachePurges1795401800000 implements MigrationInterface {
  name = 'AddCachePurges1795401800000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "cache_purges" ("url" text NOT NULL, "purged_through" bigint NOT NULL, "failures" integer NOT NULL DEFAULT '0', "retry_at" TIMESTAMP(3) WITH TIME ZONE, CONSTRAINT "PK_cache_purges" PRIMARY KEY ("url"))`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "cache_purges"`);
  }
}

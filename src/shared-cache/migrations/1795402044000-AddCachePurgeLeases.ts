import { MigrationInterface, QueryRunner } from 'typeorm';

/** Purges of shared caches run in the events job: `leased_until` lets one process at a time purge each cache. */
export class AddCachePurgeLeases1795402044000 implements MigrationInterface {
  name = 'AddCachePurgeLeases1795402044000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cache_purges" ADD "leased_until" TIMESTAMP(3) WITH TIME ZONE`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "cache_purges" DROP COLUMN "leased_until"`);
  }
}

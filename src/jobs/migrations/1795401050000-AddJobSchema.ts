import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schema of the job library's tables (docs/architecture.md, "Jobs"), created here under the migration lock: pg-boss
 * creates its tables in it at start-up under its own lock, but its `CREATE SCHEMA IF NOT EXISTS` is not safe when two
 * processes start at once (the second fails on `pg_namespace`'s unique index).
 */
export class AddJobSchema1795401050000 implements MigrationInterface {
  name = 'AddJobSchema1795401050000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SCHEMA IF NOT EXISTS "pgboss"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP SCHEMA IF EXISTS "pgboss" CASCADE`);
  }
}

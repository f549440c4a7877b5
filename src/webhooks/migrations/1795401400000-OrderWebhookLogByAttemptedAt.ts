import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A webhook's delivery log newest first by `attempted_at`, ties by `id` (docs/architecture.md, "Webhooks"): the index
 * its last 100 attempts are read and pruned by, in place of the one by `id`.
 */
export class OrderWebhookLogByAttemptedAt1795401400000 implements MigrationInterface {
  name = 'OrderWebhookLogByAttemptedAt1795401400000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_attempts_webhook_id_attempted_at_id" ON "webhook_attempts" ("webhook_id", "attempted_at", "id")`,
    );
    await queryRunner.query(`DROP INDEX "IDX_webhook_attempts_webhook_id_id"`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_attempts_webhook_id_id" ON "webhook_attempts" ("webhook_id", "id")`,
    );
    await queryRunner.query(`DROP INDEX "IDX_webhook_attempts_webhook_id_attempted_at_id"`);
  }
}

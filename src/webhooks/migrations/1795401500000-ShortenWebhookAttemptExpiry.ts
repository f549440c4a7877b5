import { MigrationInterface, QueryRunner } from 'typeorm';

/** `expire_seconds` of the queue `webhook-delivery` and of its jobs not yet started, when the job library's tables exist. */
const setExpiry = (seconds: number): string => `DO $$ BEGIN
    IF to_regclass('pgboss.queue') IS NOT NULL THEN
      UPDATE "pgboss"."queue" SET "expire_seconds" = ${seconds} WHERE "name" = 'webhook-delivery';
      UPDATE "pgboss"."job" SET "expire_seconds" = ${seconds}
        WHERE "name" = 'webhook-delivery' AND "state" IN ('created', 'retry');
    END IF;
  END $$`;

/**
 * A webhook attempt cut short (its process killed) is made again 20 s after it started rather than 30 s
 * (docs/architecture.md, "Webhooks"): the job library keeps a queue's options from its creation, so they change here.
 */
export class ShortenWebhookAttemptExpiry1795401500000 implements MigrationInterface {
  name = 'ShortenWebhookAttemptExpiry1795401500000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(setExpiry(20));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(setExpiry(30));
  }
}

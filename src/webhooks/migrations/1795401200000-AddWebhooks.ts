import { MigrationInterface, QueryRunner } from 'typeorm';

/** `relay_events(batch)` as `AddEvents` wrote it, plus the statement that fans the moved events out (none there). */
const relayEvents = (fanOut: string): string => `
  CREATE OR REPLACE FUNCTION "relay_events"("batch" int4) RETURNS int4 LANGUAGE plpgsql AS $$
  DECLARE
    moved int4;
  BEGIN
    LOCK TABLE "events" IN EXCLUSIVE MODE;
    WITH "batch" AS (
      DELETE FROM "event_outbox" WHERE "seq" IN (SELECT "seq" FROM "event_outbox" ORDER BY "seq" LIMIT "batch")
      RETURNING *),
    "moved" AS (
      INSERT INTO "events" ("id", "type", "occurred_at", "blog")
      SELECT (SELECT coalesce(max("id"), 0) FROM "events") + row_number() OVER (ORDER BY b."seq"), b."type",
        b."occurred_at", b."blog"
      FROM "batch" b
      RETURNING "id", "type")${fanOut}
    SELECT count(*) INTO moved FROM "moved";
    RETURN moved;
  END $$`;

/**
 * Webhooks (docs/architecture.md, "Webhooks"): the registrations, one delivery per (webhook, event) that the relay
 * writes as it numbers the event, and the log of every attempt.
 */
export class AddWebhooks1795401200000 implements MigrationInterface {
  name = 'AddWebhooks1795401200000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "webhooks" (
      "id" uuid NOT NULL,
      "url" text NOT NULL,
      "events" text array NOT NULL,
      "secret" text NOT NULL,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      "disabled_at" TIMESTAMP(3) WITH TIME ZONE,
      "failing_since" TIMESTAMP(3) WITH TIME ZONE,
      "after_event_id" bigint NOT NULL,
      CONSTRAINT "PK_webhooks" PRIMARY KEY ("id"))`);
    await queryRunner.query(`CREATE TABLE "webhook_deliveries" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "webhook_id" uuid NOT NULL,
      "event_id" bigint NOT NULL,
      "state" text NOT NULL DEFAULT 'pending',
      "attempts" integer NOT NULL DEFAULT 0,
      "queued" boolean NOT NULL DEFAULT false,
      "created_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL DEFAULT now(),
      CONSTRAINT "PK_webhook_deliveries" PRIMARY KEY ("id"),
      CONSTRAINT "UQ_webhook_deliveries_webhook_id_event_id" UNIQUE ("webhook_id", "event_id"),
      CONSTRAINT "FK_webhook_deliveries_webhook_id" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id")
        ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_deliveries_state_created_at" ON "webhook_deliveries" ("state", "created_at")`,
    );
    await queryRunner.query(`CREATE INDEX "IDX_webhook_deliveries_queued" ON "webhook_deliveries" ("queued", "id")`);
    await queryRunner.query(`CREATE TABLE "webhook_attempts" (
      "id" bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
      "webhook_id" uuid NOT NULL,
      "event_id" bigint NOT NULL,
      "attempted_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "status_code" integer,
      "duration_ms" integer NOT NULL,
      "error" text,
      CONSTRAINT "PK_webhook_attempts" PRIMARY KEY ("id"),
      CONSTRAINT "FK_webhook_attempts_webhook_id" FOREIGN KEY ("webhook_id") REFERENCES "webhooks"("id")
        ON DELETE CASCADE ON UPDATE NO ACTION)`);
    await queryRunner.query(
      `CREATE INDEX "IDX_webhook_attempts_webhook_id_id" ON "webhook_attempts" ("webhook_id", "id")`,
    );
    await queryRunner.query(
      relayEvents(`,
    "fanned" AS (
      INSERT INTO "webhook_deliveries" ("webhook_id", "event_id")
      SELECT w."id", m."id" FROM "moved" m
      JOIN "webhooks" w ON w."disabled_at" IS NULL AND m."type" = ANY (w."events") AND m."id" > w."after_event_id")`),
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(relayEvents(''));
    await queryRunner.query(`DROP TABLE "webhook_attempts"`);
    await queryRunner.query(`DROP TABLE "webhook_deliveries"`);
    await queryRunner.query(`DROP TABLE "webhooks"`);
  }
}

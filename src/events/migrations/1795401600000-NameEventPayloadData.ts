import { MigrationInterface, QueryRunner } from 'typeorm';

/** `relay_events(batch)` as `AddWebhooks` wrote it, moving the payload column `column`. */
const relayEvents = (column: string): string => `
  CREATE OR REPLACE FUNCTION "relay_events"("batch" int4) RETURNS int4 LANGUAGE plpgsql AS $$
  DECLARE
    moved int4;
  BEGIN
    LOCK TABLE "events" IN EXCLUSIVE MODE;
    WITH "batch" AS (
      DELETE FROM "event_outbox" WHERE "seq" IN (SELECT "seq" FROM "event_outbox" ORDER BY "seq" LIMIT "batch")
      RETURNING *),
    "moved" AS (
      INSERT INTO "events" ("id", "type", "occurred_at", "${column}")
      SELECT (SELECT coalesce(max("id"), 0) FROM "events") + row_number() OVER (ORDER BY b."seq"), b."type",
        b."occurred_at", b."${column}"
      FROM "batch" b
      RETURNING "id", "type"),
    "fanned" AS (
      INSERT INTO "webhook_deliveries" ("webhook_id", "event_id")
      SELECT w."id", m."id" FROM "moved" m
      JOIN "webhooks" w ON w."disabled_at" IS NULL AND m."type" = ANY (w."events") AND m."id" > w."after_event_id")
    SELECT count(*) INTO moved FROM "moved";
    RETURN moved;
  END $$`;

/**
 * Events of any resource (docs/architecture.md, "Events"): the payload column of `event_outbox` and `events` is
 * `data`, the JSON its writer stored, whichever module wrote it. Runs in one transaction with `WriteBlogEventsAsData`,
 * which points the blog functions at the new name.
 */
export class NameEventPayloadData1795401600000 implements MigrationInterface {
  name = 'NameEventPayloadData1795401600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "event_outbox" RENAME COLUMN "blog" TO "data"`);
    await queryRunner.query(`ALTER TABLE "events" RENAME COLUMN "blog" TO "data"`);
    await queryRunner.query(relayEvents('data'));
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "events" RENAME COLUMN "data" TO "blog"`);
    await queryRunner.query(`ALTER TABLE "event_outbox" RENAME COLUMN "data" TO "blog"`);
    await queryRunner.query(relayEvents('blog'));
  }
}

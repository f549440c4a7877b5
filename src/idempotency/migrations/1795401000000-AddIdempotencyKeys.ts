import { MigrationInterface, QueryRunner } from 'typeorm';

/** The `Idempotency-Key`s of writes, shared by every replica (docs/architecture.md, "Idempotency keys"). */
export class AddIdempotencyKeys1795401000000 implements MigrationInterface {
  name = 'AddIdempotencyKeys1795401000000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE TABLE "idempotency_keys" (
      "owner_sub" text NOT NULL,
      "key" text COLLATE "C" NOT NULL,
      "fingerprint" bytea NOT NULL,
      "status" integer,
      "answer" json,
      "locked_until" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      "expires_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL,
      CONSTRAINT "PK_idempotency_keys" PRIMARY KEY ("owner_sub", "key"))`);
    await queryRunner.query(`CREATE INDEX "IDX_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at")`);
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}

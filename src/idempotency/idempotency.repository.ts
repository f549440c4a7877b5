import { Injectable } from '@nestjs/common';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';
import type { KeptAnswer } from './idempotency-key.entity';

/** How long a key stays used after its first request, and how long a request in flight holds it, in seconds. */
export const IDEMPOTENCY_TIMES = { keptSeconds: 86_400, leaseSeconds: 60 } as const;

/** What a key is when a request comes with it. */
export type KeyClaim =
  | { readonly kind: 'claimed' }
  | { readonly kind: 'in-flight' }
  | { readonly kind: 'reused' }
  | { readonly kind: 'answered'; readonly answer: KeptAnswer };

/**
 * Takes the key $2 of $1 for the request $3 when it is new, expired, or held by a request whose lease ran out;
 * otherwise reads what it is. A row is claimed (`claimed`) or the stored one (when it existed at the snapshot).
 */
const CLAIM: PreparedStatement = {
  name: 'idempotency.claim',
  text: `WITH "claimed" AS (
    INSERT INTO "idempotency_keys" ("owner_sub", "key", "fingerprint", "locked_until", "expires_at")
    VALUES ($1, $2, $3, now() + make_interval(secs => ${IDEMPOTENCY_TIMES.leaseSeconds}),
      now() + make_interval(secs => ${IDEMPOTENCY_TIMES.keptSeconds}))
    ON CONFLICT ("owner_sub", "key") DO UPDATE SET "fingerprint" = EXCLUDED."fingerprint", "status" = NULL,
      "answer" = NULL, "locked_until" = EXCLUDED."locked_until", "expires_at" = EXCLUDED."expires_at"
    WHERE "idempotency_keys"."expires_at" <= now()
      OR ("idempotency_keys"."status" IS NULL AND "idempotency_keys"."locked_until" <= now())
    RETURNING 1)
  SELECT true AS "claimed", NULL::bytea AS "fingerprint", NULL::int4 AS "status", NULL::json AS "answer"
  FROM "claimed"
  UNION ALL
  SELECT false, k."fingerprint", k."status", k."answer" FROM "idempotency_keys" k
  WHERE k."owner_sub" = $1 AND k."key" = $2 AND NOT EXISTS (SELECT FROM "claimed")`,
};

/** Keeps the answer $4 (status $3) of the key $2 of $1 that the request $5 holds. */
const KEEP: PreparedStatement = {
  name: 'idempotency.keep',
  text: `UPDATE "idempotency_keys" SET "status" = $3, "answer" = $4
    WHERE "owner_sub" = $1 AND "key" = $2 AND "status" IS NULL AND "fingerprint" = $5`,
};

/** Frees the key $2 of $1 that the request $3 holds. */
const FREE: PreparedStatement = {
  name: 'idempotency.free',
  text: `DELETE FROM "idempotency_keys"
    WHERE "owner_sub" = $1 AND "key" = $2 AND "status" IS NULL AND "fingerprint" = $3`,
};

/** Claims tried before a key that keeps changing under concurrent requests counts as in flight. */
const CLAIM_ATTEMPTS = 3;

interface ClaimRow {
  claimed: boolean;
  fingerprint: Buffer | Uint8Array | null;
  status: number | null;
  answer: KeptAnswer | null;
}

/** Expired keys deleted per statement by {@link IdempotencyRepository.deleteExpired}. */
export const EXPIRED_BATCH = 10_000;

const DELETE_EXPIRED: PreparedStatement = {
  name: 'idempotency.delete-expired',
  text: `DELETE FROM "idempotency_keys" WHERE ("owner_sub", "key") IN (
    SELECT "owner_sub", "key" FROM "idempotency_keys" WHERE "expires_at" <= now() LIMIT $1 FOR UPDATE SKIP LOCKED)`,
};

/** Idempotency keys in the primary database, so that every replica of the service sees the same ones. */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly sql: StatementRunner) {}

  /** Claims `key` of `owner` for the request `fingerprint` (SHA-256 of method, path and body), or says what it is. */
  async claim(owner: string, key: string, fingerprint: Buffer): Promise<KeyClaim> {
    for (let attempt = 1; ; attempt += 1) {
      const { rows } = await this.sql.onPrimary<ClaimRow>(CLAIM, [owner, key, fingerprint]);
      const [row] = rows;
      // None: the row that blocked the insert committed after this statement's snapshot, or was just freed.
      if (row === undefined) {
        if (attempt < CLAIM_ATTEMPTS) continue;
        return { kind: 'in-flight' };
      }
      if (row.claimed) return { kind: 'claimed' };
      if (row.status === null) return { kind: 'in-flight' };
      if (!Buffer.from(row.fingerprint ?? []).equals(fingerprint)) return { kind: 'reused' };
      return { kind: 'answered', answer: row.answer as KeptAnswer };
    }
  }

  /** Keeps `answer` for `key` of `owner`, held by the request `fingerprint`. */
  async keep(owner: string, key: string, fingerprint: Buffer, answer: KeptAnswer): Promise<void> {
    await this.sql.onPrimary(KEEP, [owner, key, answer.status, JSON.stringify(answer), fingerprint]);
  }

  /** Deletes every expired key, {@link EXPIRED_BATCH} per statement; returns how many. */
  deleteExpired(): Promise<number> {
    return this.sql.deleteInBatches(DELETE_EXPIRED, [], EXPIRED_BATCH);
  }

  /** Frees `key` of `owner`, held by the request `fingerprint`: the next request with it is carried out. */
  async free(owner: string, key: string, fingerprint: Buffer): Promise<void> {
    await this.sql.onPrimary(FREE, [owner, key, fingerprint]);
  }
}

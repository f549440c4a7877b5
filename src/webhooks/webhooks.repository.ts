import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { isDeadlock } from '../database/database-errors';
import { rowMapper } from '../database/entity-rows';
import { PreparedStatement, StatementRunner, Transaction } from '../database/statement-runner';
import { EventsRepository } from '../events/events.repository';
import type { EventType } from '../events/event-type';
import { DeliveryState } from './webhook-delivery.entity';
import { WebhookAttempt } from './webhook-attempt.entity';
import { Webhook } from './webhook.entity';
import { DISABLE_AFTER_SECONDS } from './retry-schedule';
import { FINISHED_DELIVERY_RETENTION_DAYS, WEBHOOK_LOG_SIZE } from './webhooks.constants';

/** Deliveries whose first attempt is sent to the job queue per statement. */
export const QUEUE_BATCH = 1000;

const INSERT: PreparedStatement = {
  name: 'webhooks.insert',
  text: `INSERT INTO "webhooks" ("id", "url", "events", "secret", "after_event_id")
    VALUES ($1, $2, $3::text[], $4, (SELECT coalesce(max("id"), 0) FROM "events"))
    RETURNING "id", "url", "events", "secret", "created_at", "disabled_at", "failing_since", "after_event_id"::text`,
};

const DELETE: PreparedStatement = {
  name: 'webhooks.delete',
  text: `DELETE FROM "webhooks" WHERE "id" = $1 RETURNING "id"`,
};

const webhookOf = rowMapper(Webhook);
const attemptOf = rowMapper(WebhookAttempt);

/** Newest first by `attempted_at`, ties by `id`; ids as text: PGlite answers int8 as a number, exact only up to 2^53. */
const LAST_ATTEMPTS: PreparedStatement = {
  name: 'webhooks.last-attempts',
  text: `SELECT "event_id"::text AS "event_id", "attempted_at", "status_code", "duration_ms", "error"
    FROM "webhook_attempts" WHERE "webhook_id" = $1 ORDER BY "attempted_at" DESC, "id" DESC LIMIT $2`,
};

const QUEUE_NEW: PreparedStatement = {
  name: 'webhooks.queue-new',
  text: `UPDATE "webhook_deliveries" SET "queued" = true WHERE "id" IN (
      SELECT "id" FROM "webhook_deliveries" WHERE NOT "queued" ORDER BY "id" LIMIT $1 FOR UPDATE SKIP LOCKED)
    RETURNING "id"::text AS "id", "webhook_id"`,
};

const TARGET: PreparedStatement = {
  name: 'webhooks.target',
  text: `SELECT d."state", d."attempts", d."event_id"::text AS "event_id", d."created_at", w."id" AS "webhook_id", w."url",
      w."secret", w."disabled_at"
    FROM "webhook_deliveries" d JOIN "webhooks" w ON w."id" = d."webhook_id" WHERE d."id" = $1`,
};

/**
 * Locks the webhook of delivery $1 against a delete (`FOR KEY SHARE`, which concurrent attempts share), so that an
 * attempt takes the webhook before its delivery, in the order of the delete's cascade; no row once it is deleted.
 */
const LOCK_WEBHOOK: PreparedStatement = {
  name: 'webhooks.lock-webhook',
  text: `SELECT 1 FROM "webhooks" WHERE "id" = (SELECT "webhook_id" FROM "webhook_deliveries" WHERE "id" = $1)
    FOR KEY SHARE`,
};

const SETTLE: PreparedStatement = {
  name: 'webhooks.settle',
  text: `UPDATE "webhook_deliveries" SET "attempts" = $2, "state" = $3
    WHERE "id" = $1 AND "attempts" = $2 - 1 AND "state" = 'pending' RETURNING "webhook_id", "event_id"::text AS "event_id"`,
};

const LOG: PreparedStatement = {
  name: 'webhooks.log',
  text: `INSERT INTO "webhook_attempts" ("webhook_id", "event_id", "attempted_at", "status_code", "duration_ms", "error")
    VALUES ($1, $2, $3, $4, $5, $6)`,
};

const SUCCEEDED: PreparedStatement = {
  name: 'webhooks.succeeded',
  text: `UPDATE "webhooks" SET "failing_since" = NULL WHERE "id" = $1 AND "failing_since" IS NOT NULL`,
};

const FAILED: PreparedStatement = {
  name: 'webhooks.failed',
  text: `UPDATE "webhooks" SET "failing_since" = coalesce("failing_since", $2),
      "disabled_at" = CASE WHEN coalesce("failing_since", $2) <= $2::timestamptz - make_interval(secs => $3) THEN $2 END
    WHERE "id" = $1 AND "disabled_at" IS NULL RETURNING "disabled_at"`,
};

const GIVE_UP: PreparedStatement = {
  name: 'webhooks.give-up',
  text: `UPDATE "webhook_deliveries" SET "state" = 'failed' WHERE "webhook_id" = $1 AND "state" = 'pending'`,
};

const BACKLOG: PreparedStatement = {
  name: 'webhooks.backlog',
  text: `SELECT count(*)::int4 AS "depth", coalesce(extract(epoch FROM now() - min("created_at")), 0)::float8 AS "oldest"
    FROM "webhook_deliveries" WHERE "state" = 'pending'`,
};

/** Rows deleted per statement by {@link WebhooksRepository.prune}. */
export const PRUNE_BATCH = 10_000;

/** Up to $2 deliveries made or given up, created more than $1 days ago. */
const PRUNE_DELIVERIES: PreparedStatement = {
  name: 'webhooks.prune-deliveries',
  text: `DELETE FROM "webhook_deliveries" WHERE "id" IN (SELECT "id" FROM "webhook_deliveries"
    WHERE "state" IN ('delivered', 'failed') AND "created_at" < now() - make_interval(days => $1) LIMIT $2)`,
};

/** Up to $2 attempts older than their webhook's newest $1, which are all its log shows. */
const PRUNE_ATTEMPTS: PreparedStatement = {
  name: 'webhooks.prune-attempts',
  text: `DELETE FROM "webhook_attempts" WHERE "id" IN (SELECT a."id" FROM "webhooks" w
    JOIN LATERAL (SELECT b."attempted_at", b."id" FROM "webhook_attempts" b WHERE b."webhook_id" = w."id"
      ORDER BY b."attempted_at" DESC, b."id" DESC OFFSET $1 - 1 LIMIT 1) k ON true
    JOIN "webhook_attempts" a ON a."webhook_id" = w."id" AND (a."attempted_at", a."id") < (k."attempted_at", k."id")
    LIMIT $2)`,
};

/** A delivery with what its next attempt needs. */
export interface DeliveryTarget {
  readonly state: DeliveryState;
  readonly attempts: number;
  readonly eventId: string;
  readonly createdAt: Date;
  readonly webhookId: string;
  readonly url: string;
  readonly secret: string;
  readonly disabledAt: Date | null;
}

/** One attempt's outcome, as the delivery log keeps it. */
export interface AttemptRecord {
  readonly attemptedAt: Date;
  readonly statusCode: number | null;
  readonly durationMs: number;
  readonly error: string | null;
}

/** Webhooks, their deliveries and their delivery logs. */
@Injectable()
export class WebhooksRepository {
  constructor(
    @InjectRepository(Webhook) private readonly webhooks: Repository<Webhook>,
    private readonly sql: StatementRunner,
    private readonly events: EventsRepository,
  ) {}

  /** Stores a webhook that receives the events committed after it: the relay runs first, its lock held until commit. */
  create(url: string, events: readonly EventType[], secret: string): Promise<Webhook> {
    return this.sql.transaction(async (transaction) => {
      await this.events.relay(transaction);
      const { rows } = await transaction.query<Record<string, unknown>>(INSERT, [randomUUID(), url, events, secret]);
      return webhookOf(rows[0]);
    });
  }

  /** Every webhook, oldest first. */
  list(): Promise<Webhook[]> {
    return this.webhooks.find({ order: { createdAt: 'ASC', id: 'ASC' } });
  }

  findOne(id: string): Promise<Webhook | null> {
    return this.webhooks.findOneBy({ id });
  }

  /**
   * Deletes a webhook with its deliveries and log (`ON DELETE CASCADE`); false when there was none. It locks the webhook,
   * then its deliveries and attempts; a statement that met a deadlock (the hourly prune deletes attempts in its own
   * order) was rolled back whole and runs again.
   */
  async delete(id: string): Promise<boolean> {
    for (;;) {
      try {
        const { rowCount } = await this.sql.onPrimary(DELETE, [id]);
        return rowCount > 0;
      } catch (error) {
        if (!isDeadlock(error)) throw error;
      }
    }
  }

  /** The webhook's last {@link WEBHOOK_LOG_SIZE} attempts, newest first. */
  async lastAttempts(webhookId: string): Promise<WebhookAttempt[]> {
    const { rows } = await this.sql.onPrimary<Record<string, unknown>>(LAST_ATTEMPTS, [webhookId, WEBHOOK_LOG_SIZE]);
    return rows.map((row) => Object.assign(attemptOf(row), { webhookId }));
  }

  /** Marks up to {@link QUEUE_BATCH} new deliveries as queued in `transaction`; returns their ids and webhooks. */
  async queueNew(transaction: Transaction): Promise<{ id: string; webhook_id: string }[]> {
    const { rows } = await transaction.query<{ id: string; webhook_id: string }>(QUEUE_NEW, [QUEUE_BATCH]);
    return rows;
  }

  /** The delivery `id` with its webhook, or null when either is gone. */
  async target(id: string): Promise<DeliveryTarget | null> {
    const { rows } = await this.sql.onPrimary<Record<string, unknown>>(TARGET, [id]);
    const row = rows[0];
    if (row === undefined) return null;
    return {
      state: row.state as DeliveryState,
      attempts: row.attempts as number,
      eventId: row.event_id as string,
      createdAt: new Date(row.created_at as string),
      webhookId: row.webhook_id as string,
      url: row.url as string,
      secret: row.secret as string,
      disabledAt: row.disabled_at === null ? null : new Date(row.disabled_at as string),
    };
  }

  /**
   * Records attempt number `attempt` of delivery `id` as leaving it in `state`, with its log entry and the webhook's
   * failure streak (disabling it, and giving up its deliveries, after {@link DISABLE_AFTER_SECONDS}); false, and
   * nothing written, when that attempt was already recorded or the webhook is deleted. Takes the webhook's lock first,
   * as {@link delete} does, so that the two never deadlock.
   */
  async settle(
    transaction: Transaction,
    id: string,
    attempt: number,
    state: DeliveryState,
    record: AttemptRecord,
  ): Promise<boolean> {
    if ((await transaction.query(LOCK_WEBHOOK, [id])).rowCount === 0) return false;
    const settled = await transaction.query<{ webhook_id: string; event_id: string }>(SETTLE, [id, attempt, state]);
    const delivery = settled.rows[0];
    if (delivery === undefined) return false;
    const { attemptedAt, statusCode, durationMs, error } = record;
    await transaction.query(LOG, [delivery.webhook_id, delivery.event_id, attemptedAt, statusCode, durationMs, error]);
    if (state === 'delivered') {
      await transaction.query(SUCCEEDED, [delivery.webhook_id]);
      return true;
    }
    const failed = await transaction.query<{ disabled_at: Date | null }>(FAILED, [
      delivery.webhook_id,
      attemptedAt,
      DISABLE_AFTER_SECONDS,
    ]);
    if (failed.rows[0]?.disabled_at != null) await transaction.query(GIVE_UP, [delivery.webhook_id]);
    return true;
  }

  /**
   * Deletes deliveries made or given up and created more than {@link FINISHED_DELIVERY_RETENTION_DAYS} days ago, and the attempts
   * that no webhook's log shows any more.
   * @returns the rows deleted of each.
   */
  async prune(): Promise<{ deliveries: number; attempts: number }> {
    return {
      deliveries: await this.sql.deleteInBatches(PRUNE_DELIVERIES, [FINISHED_DELIVERY_RETENTION_DAYS], PRUNE_BATCH),
      attempts: await this.sql.deleteInBatches(PRUNE_ATTEMPTS, [WEBHOOK_LOG_SIZE], PRUNE_BATCH),
    };
  }

  /** Deliveries not yet made or given up, and the age of the oldest in seconds (0 when none). */
  async backlog(): Promise<{ depth: number; oldest: number }> {
    const { rows } = await this.sql.onPrimary<{ depth: number; oldest: number }>(BACKLOG, []);
    return rows[0];
  }
}

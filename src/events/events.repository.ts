import { Injectable } from '@nestjs/common';
import { PreparedStatement, StatementRunner, Transaction } from '../database/statement-runner';
import { ChangeEvent } from './event.entity';

/** Events moved from the outbox per relay run: a long-unread outbox is numbered in bounded transactions. */
export const RELAY_BATCH = 10_000;

const RELAY: PreparedStatement = { name: 'events.relay', text: `SELECT "relay_events"($1) AS "moved"` };

/** Ids as text (drivers differ on int8: PGlite answers a number, exact only up to 2^53), ordered as numbers. */
const PAGE: PreparedStatement = {
  name: 'events.page',
  text: `SELECT e."id"::text AS "id", e."type", e."occurred_at", e."data" FROM "events" e WHERE e."id" > $1::int8 ORDER BY e."id" LIMIT $2`,
};

const BY_ID: PreparedStatement = {
  name: 'events.by-id',
  text: `SELECT e."id"::text AS "id", e."type", e."occurred_at", e."data" FROM "events" e WHERE e."id" = $1::int8`,
};

interface EventRow {
  id: string;
  type: ChangeEvent['type'];
  occurred_at: Date;
  data: Record<string, unknown>;
}

/** The change feed's storage: numbering committed outbox events, and reading them in order. */
@Injectable()
export class EventsRepository {
  constructor(private readonly sql: StatementRunner) {}

  /**
   * Numbers every committed outbox event, in batches of {@link RELAY_BATCH}, in `transaction` when given (its lock on
   * `events` then lasts until it ends); returns how many it numbered.
   */
  async relay(transaction?: Transaction): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await (transaction === undefined
        ? this.sql.onPrimary<{ moved: number }>(RELAY, [RELAY_BATCH])
        : transaction.query<{ moved: number }>(RELAY, [RELAY_BATCH]));
      total += rows[0].moved;
      if (rows[0].moved < RELAY_BATCH) return total;
    }
  }

  /** Up to `limit` events with ids above `after` (int8 in decimal digits), in id order, from the primary. */
  async after(after: string, limit: number): Promise<ChangeEvent[]> {
    const { rows } = await this.sql.onPrimary<EventRow>(PAGE, [after, limit]);
    return rows.map(toEvent);
  }

  /** The event `id` (int8 in decimal digits) from the primary, or null when the relay has not numbered it. */
  async byId(id: string): Promise<ChangeEvent | null> {
    const { rows } = await this.sql.onPrimary<EventRow>(BY_ID, [id]);
    return rows.length === 0 ? null : toEvent(rows[0]);
  }
}

function toEvent(row: EventRow): ChangeEvent {
  return { id: row.id, type: row.type, occurredAt: row.occurred_at, data: row.data };
}

import { Injectable } from '@nestjs/common';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';

/** Where one cache's purges stand, as {@link CachePurgesRepository.position} reads it. */
export interface PurgePosition {
  /** int8 in decimal digits: the last event purged. */
  readonly purgedThrough: string;
  /** Purges refused in a row. */
  readonly failures: number;
  /** Whether the next purge may be tried now (no refusal waits). */
  readonly due: boolean;
}

/** The events not yet purged, all caches together, as {@link CachePurgesRepository.backlog} reads them. */
export interface PurgeBacklog {
  /** Events not yet purged, summed over the caches. */
  readonly pending: number;
  /** Age in seconds of the oldest of them (0 when none). */
  readonly oldestSeconds: number;
}

/** A cache new to `cache_purges` starts at the newest event: it holds nothing older that a purge would take back. */
const START: PreparedStatement = {
  name: 'cache-purges.start',
  text: `INSERT INTO "cache_purges" ("url", "purged_through")
    SELECT "url", (SELECT coalesce(max("id"), 0) FROM "events") FROM unnest($1::text[]) AS "url"
    ON CONFLICT DO NOTHING`,
};

const DUE: PreparedStatement = {
  name: 'cache-purges.due',
  text: `SELECT "url" FROM "cache_purges" WHERE "url" = ANY($1::text[])
    AND "purged_through" < (SELECT coalesce(max("id"), 0) FROM "events") AND ("retry_at" IS NULL OR "retry_at" <= now())`,
};

const POSITION: PreparedStatement = {
  name: 'cache-purges.position',
  text: `SELECT "purged_through"::text AS "purged_through", "failures", ("retry_at" IS NULL OR "retry_at" <= now()) AS "due"
    FROM "cache_purges" WHERE "url" = $1`,
};

const ADVANCE: PreparedStatement = {
  name: 'cache-purges.advance',
  text: `UPDATE "cache_purges" SET "purged_through" = $3::int8, "failures" = 0, "retry_at" = NULL
    WHERE "url" = $1 AND "purged_through" = $2::int8`,
};

const REFUSED: PreparedStatement = {
  name: 'cache-purges.refused',
  text: `UPDATE "cache_purges" SET "failures" = "failures" + 1, "retry_at" = now() + make_interval(secs => $3::float8)
    WHERE "url" = $1 AND "purged_through" = $2::int8`,
};

const BACKLOG: PreparedStatement = {
  name: 'cache-purges.backlog',
  text: `SELECT coalesce(sum("pending"."n"), 0)::float8 AS "pending",
      coalesce(max(extract(epoch FROM now() - "oldest"."occurred_at")), 0)::float8 AS "oldest_seconds"
    FROM "cache_purges" p
    CROSS JOIN LATERAL (SELECT count(*) AS "n" FROM "events" e WHERE e."id" > p."purged_through") "pending"
    LEFT JOIN LATERAL (SELECT e."occurred_at" FROM "events" e WHERE e."id" > p."purged_through" ORDER BY e."id" LIMIT 1)
      "oldest" ON true
    WHERE p."url" = ANY($1::text[])`,
};

/** `cache_purges`: how far each cache is purged; every change is a compare-and-set on `purged_through`. */
@Injectable()
export class CachePurgesRepository {
  constructor(private readonly sql: StatementRunner) {}

  /** Adds the caches of `urls` not yet known, each as purged through the newest event. */
  async start(urls: readonly string[]): Promise<void> {
    await this.sql.onPrimary(START, [urls]);
  }

  /** The caches of `urls` with events not yet purged and no refusal to wait out. */
  async due(urls: readonly string[]): Promise<string[]> {
    const { rows } = await this.sql.onPrimary<{ url: string }>(DUE, [urls]);
    return rows.map(({ url }) => url);
  }

  /** Where the purges of cache `url` stand, or null when it is not known. */
  async position(url: string): Promise<PurgePosition | null> {
    const { rows } = await this.sql.onPrimary<{ purged_through: string; failures: number; due: boolean }>(POSITION, [
      url,
    ]);
    return rows.length === 0
      ? null
      : { purgedThrough: rows[0].purged_through, failures: rows[0].failures, due: rows[0].due };
  }

  /** Records cache `url` as purged through event `to`, if it still stands at `from`; returns whether it did. */
  async advance(url: string, from: string, to: string): Promise<boolean> {
    return (await this.sql.onPrimary(ADVANCE, [url, from, to])).rowCount === 1;
  }

  /** Records a refused purge of cache `url` (at `from`): the next is tried `retrySeconds` later. */
  async refused(url: string, from: string, retrySeconds: number): Promise<void> {
    await this.sql.onPrimary(REFUSED, [url, from, retrySeconds]);
  }

  /** The events that the caches of `urls` have not purged yet. */
  async backlog(urls: readonly string[]): Promise<PurgeBacklog> {
    const { rows } = await this.sql.onPrimary<{ pending: number; oldest_seconds: number }>(BACKLOG, [urls]);
    return { pending: rows[0].pending, oldestSeconds: rows[0].oldest_seconds };
  }
}

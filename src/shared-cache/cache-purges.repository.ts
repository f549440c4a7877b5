import { Injectable } from '@nestjs/common';
import { PreparedStatement, StatementRunner } from '../database/statement-runner';

/** A cache this process holds the lease of, as {@link CachePurgesRepository.claim} reads it. */
export interface PurgeClaim {
  /** The cache's base URL. */
  readonly url: string;
  /** int8 in decimal digits: the last event purged. */
  readonly purgedThrough: string;
  /** Purges refused in a row. */
  readonly failures: number;
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

/** Leases the caches with events not yet purged, no refusal to wait out, and no lease of another run. */
const CLAIM: PreparedStatement = {
  name: 'cache-purges.claim',
  text: `UPDATE "cache_purges" SET "leased_until" = now() + make_interval(secs => $2::float8)
    WHERE "url" = ANY($1::text[]) AND "purged_through" < (SELECT coalesce(max("id"), 0) FROM "events")
      AND ("retry_at" IS NULL OR "retry_at" <= now()) AND ("leased_until" IS NULL OR "leased_until" <= now())
    RETURNING "url", "purged_through"::text AS "purged_through", "failures"`,
};

/** Moves the position (from $2 to $3); the lease then lasts $4 seconds more, or ends when $4 is null. */
const ADVANCE: PreparedStatement = {
  name: 'cache-purges.advance',
  text: `UPDATE "cache_purges" SET "purged_through" = $3::int8, "failures" = 0, "retry_at" = NULL,
      "leased_until" = now() + make_interval(secs => $4::float8)
    WHERE "url" = $1 AND "purged_through" = $2::int8`,
};

const REFUSED: PreparedStatement = {
  name: 'cache-purges.refused',
  text: `UPDATE "cache_purges" SET "failures" = "failures" + 1, "retry_at" = now() + make_interval(secs => $3::float8),
      "leased_until" = NULL
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

/** `cache_purges`: how far each cache is purged, and which run purges it; each move is a compare-and-set on `purged_through`. */
@Injectable()
export class CachePurgesRepository {
  constructor(private readonly sql: StatementRunner) {}

  /** Adds the caches of `urls` not yet known, each as purged through the newest event. */
  async start(urls: readonly string[]): Promise<void> {
    await this.sql.onPrimary(START, [urls]);
  }

  /**
   * Leases, for `seconds`, the caches of `urls` with events not yet purged, no refusal to wait out and no lease held;
   * returns where each stands. Another run, in any process, claims none of them until {@link advance} or
   * {@link refused} ends the lease, or it lapses (its process was killed).
   */
  async claim(urls: readonly string[], seconds: number): Promise<PurgeClaim[]> {
    const { rows } = await this.sql.onPrimary<{ url: string; purged_through: string; failures: number }>(CLAIM, [
      urls,
      seconds,
    ]);
    return rows.map((row) => ({ url: row.url, purgedThrough: row.purged_through, failures: row.failures }));
  }

  /**
   * Records cache `url` as purged through event `to`, if it still stands at `from`; its lease then lasts `leaseSeconds`
   * more, or ends when null. Returns whether it did.
   */
  async advance(url: string, from: string, to: string, leaseSeconds: number | null = null): Promise<boolean> {
    return (await this.sql.onPrimary(ADVANCE, [url, from, to, leaseSeconds])).rowCount === 1;
  }

  /** Records a refused purge of cache `url` (at `from`) and ends its lease: the next is tried `retrySeconds` later. */
  async refused(url: string, from: string, retrySeconds: number): Promise<void> {
    await this.sql.onPrimary(REFUSED, [url, from, retrySeconds]);
  }

  /** The events that the caches of `urls` have not purged yet. */
  async backlog(urls: readonly string[]): Promise<PurgeBacklog> {
    const { rows } = await this.sql.onPrimary<{ pending: number; oldest_seconds: number }>(BACKLOG, [urls]);
    return { pending: rows[0].pending, oldestSeconds: rows[0].oldest_seconds };
  }
}

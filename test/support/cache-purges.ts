import type { TestApp } from './test-app';
import { eventually } from './webhook-receiver';

/**
 * Waits until every committed change of `t`'s database is purged from every cache of its CACHE_PURGE_URLS: the outbox
 * is empty and each cache's position is at the newest event.
 */
export async function allPurged(t: TestApp, timeoutMs = 30_000): Promise<void> {
  await eventually(
    async () => {
      const [{ done }] = await t.dataSource.query<{ done: boolean }[]>(
        `SELECT NOT EXISTS (SELECT 1 FROM "event_outbox")
          AND (SELECT min("purged_through") FROM "cache_purges") >= (SELECT coalesce(max("id"), 0) FROM "events") AS "done"`,
      );
      return done;
    },
    'every change to be purged',
    timeoutMs,
  );
}

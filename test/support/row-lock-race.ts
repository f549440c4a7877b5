import type { DataSource } from 'typeorm';

/** The lock a race holds: a statement that takes it (`SELECT … FOR UPDATE`, a `DELETE`) and its parameters. */
export interface HeldLock {
  readonly sql: string;
  readonly parameters?: readonly unknown[];
}

/**
 * Runs `racers` while a transaction of its own holds `lock`, and commits it once as many statements whose text is
 * `LIKE waitingLike` wait on a lock (`pg_stat_activity`), so that they run together; their results in order.
 * PostgreSQL only: the embedded database has one connection.
 */
export async function releasedTogether<T>(
  dataSource: DataSource,
  lock: HeldLock,
  waitingLike: string,
  racers: readonly (() => Promise<T>)[],
): Promise<T[]> {
  const holder = dataSource.createQueryRunner();
  try {
    await holder.startTransaction();
    await holder.query(lock.sql, [...(lock.parameters ?? [])]);
    const results = Promise.all(racers.map((racer) => racer()));
    for (;;) {
      const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
        `SELECT count(*)::int AS "waiting" FROM pg_stat_activity
          WHERE "datname" = current_database() AND "wait_event_type" = 'Lock' AND "query" LIKE $1`,
        [waitingLike],
      );
      if (waiting >= racers.length) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await holder.commitTransaction();
    return await results;
  } finally {
    if (holder.isTransactionActive) await holder.rollbackTransaction();
    await holder.release();
  }
}

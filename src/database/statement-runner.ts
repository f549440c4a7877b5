import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Semaphore, withTimeout } from 'async-mutex';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { databaseConfig } from '../config/database.config';
import { DATABASE_TIMEOUTS } from './data-source-options';
import { Connection, lease, onConnection, QueryConfig } from './pooled-connection';
import { ReadReplicas } from './read-replicas';

/** A SQL statement with `$1`… parameters; `name` is unique per text in the process (PostgreSQL keeps plans by name). */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** The rows a statement returned, and the rows it changed (`UPDATE`, `DELETE`) or returned. */
export interface StatementResult<T> {
  readonly rows: T[];
  readonly rowCount: number;
}

/**
 * Statements whose work grows with the rows they match (a filtered list's exact total) hold at most `connections`
 * of a pool at once, in arrival order, so that they never starve the cheap ones; one client holds at most
 * `perClient` of them, its other statements waiting behind its own; a statement waits up to `maxWaitMs` for its turn
 * in all. A `long` one (a full-text search) then runs in a transaction of its own for up to `statementMs`, on one
 * core (no parallel workers), with `workMem` for its bitmap of matches (docs/performance.md, "The slow lane").
 */
export const SLOW_LANE = {
  connections: 2,
  perClient: 1,
  maxWaitMs: 45_000,
  statementMs: 15_000,
  workMem: '16MB',
} as const;

/** Opens the transaction of a `long` statement, with its time limit, its memory and no parallel workers: one query. */
const BEGIN_LONG =
  `BEGIN; SET LOCAL statement_timeout = ${SLOW_LANE.statementMs}; SET LOCAL work_mem = '${SLOW_LANE.workMem}'; ` +
  `SET LOCAL max_parallel_workers_per_gather = 0`;

/** How much longer than the server's `statement_timeout` the client waits for an answer, in ms (as for the others). */
const READ_TIMEOUT_MARGIN_MS = DATABASE_TIMEOUTS.queryMs - DATABASE_TIMEOUTS.statementMs;

/** A transaction on the primary: its statements, and its connection for a library's statements that join it. */
export interface Transaction {
  query<T>(statement: PreparedStatement, values: unknown[]): Promise<StatementResult<T>>;
  readonly connection: Connection;
}

/** The slow lane had no room within {@link SLOW_LANE}'s wait: SQLSTATE 53000 (insufficient resources), answered 503. */
export class SlowLaneBusyError extends Error {
  override readonly name = 'SlowLaneBusyError';
  readonly code = '53000';
}

/**
 * Which lane a read waits in: `slow` for statements whose work grows with the rows they match; `long` for those of
 * them that may run for seconds, which also get {@link SLOW_LANE}`.statementMs`.
 */
export type StatementLane = 'fast' | 'slow' | 'long';

/**
 * Runs {@link PreparedStatement}s straight on the driver's pooled connections, past TypeORM's query runner: as named
 * prepared statements, parsed and planned once per connection, unless `DATABASE_PREPARED_STATEMENTS` is false
 * (docs/performance.md, "Data access").
 */
@Injectable()
export class StatementRunner {
  private readonly named: boolean;
  /** A PostgreSQL server (`pg`), not the embedded database. */
  private readonly server: boolean;
  private readonly slowLane = new Semaphore(SLOW_LANE.connections);
  /** Each client's share of the slow lane, while it has a statement there: its semaphore and how many use it. */
  private readonly shares = new Map<string, { readonly semaphore: Semaphore; users: number }>();
  /** What a read that waited {@link SLOW_LANE}`.maxWaitMs` throws: one error, made once (its stack says nothing). */
  private readonly slowLaneBusy = new SlowLaneBusyError(
    `No connection for a slow statement within ${SLOW_LANE.maxWaitMs} ms`,
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) config: ConfigType<typeof databaseConfig>,
    private readonly replicas: ReadReplicas,
  ) {
    this.named = config.preparedStatements;
    this.server = config.url !== undefined;
  }

  /** Runs `statement` on the primary, which has every write. */
  onPrimary<T>(statement: PreparedStatement, values: unknown[]): Promise<StatementResult<T>> {
    const driver = this.dataSource.driver as PostgresDriver;
    return onConnection(lease(driver, 'master'), (connection) => this.run<T>(connection, statement, values));
  }

  /**
   * Runs the `DELETE` `statement` on the primary, with `values` then `batch` (its `LIMIT`) as parameters, until it
   * deletes fewer than `batch` rows; returns how many it deleted in all.
   */
  async deleteInBatches(statement: PreparedStatement, values: unknown[], batch: number): Promise<number> {
    let total = 0;
    for (;;) {
      const { rowCount } = await this.onPrimary(statement, [...values, batch]);
      total += rowCount;
      if (rowCount < batch) return total;
    }
  }

  /** Runs `work` in a transaction on the primary: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    const driver = this.dataSource.driver as PostgresDriver;
    return onConnection(lease(driver, 'master'), async (connection) => {
      await connection.query('BEGIN');
      try {
        const result = await work({
          connection,
          query: (statement, values) => this.run(connection, statement, values),
        });
        await connection.query('COMMIT');
        return result;
      } catch (error) {
        await connection.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * Runs a read on a replica within its lag bound, else on the primary ({@link ReadReplicas.read}), in `lane`; in the
   * slow lanes within the share of `client` (a client address, say) when given.
   * @throws SlowLaneBusyError when a slow read waited {@link SLOW_LANE}`.maxWaitMs` for its turn.
   */
  onReplica<T>(
    statement: PreparedStatement,
    values: unknown[],
    lane: StatementLane = 'fast',
    client?: string,
  ): Promise<StatementResult<T>> {
    return this.readIn(lane, client, (connection, readTimeoutMs) =>
      this.run<T>(connection, statement, values, readTimeoutMs),
    );
  }

  /**
   * {@link onReplica} of `statement` after `first` on the same connection (one server, and in the same transaction in
   * the `long` lane): `first` is answered before `statement`'s snapshot is taken.
   */
  onReplicaAfter<F, T>(
    first: { readonly statement: PreparedStatement; readonly values: unknown[] },
    statement: PreparedStatement,
    values: unknown[],
    lane: StatementLane = 'fast',
    client?: string,
  ): Promise<{ readonly first: StatementResult<F>; readonly then: StatementResult<T> }> {
    return this.readIn(lane, client, async (connection, readTimeoutMs) => ({
      first: await this.run<F>(connection, first.statement, first.values, readTimeoutMs),
      then: await this.run<T>(connection, statement, values, readTimeoutMs),
    }));
  }

  /** Runs `work` on a replica's connection (else the primary's) in `lane`, within `client`'s share of the slow lanes. */
  private readIn<T>(
    lane: StatementLane,
    client: string | undefined,
    work: (connection: Connection, readTimeoutMs?: number) => Promise<T>,
  ): Promise<T> {
    if (lane === 'fast') return this.replicas.read((connection) => work(connection));
    const long = lane === 'long' && this.server;
    return this.inSlowLane(client, () =>
      this.replicas.read((connection) => (long ? this.runLong(connection, work) : work(connection))),
    );
  }

  /** Runs `work` once `client`'s share (if any), then the slow lane, have room, within one wait of at most `maxWaitMs`. */
  private async inSlowLane<T>(client: string | undefined, work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + SLOW_LANE.maxWaitMs;
    if (client === undefined) return this.holding(this.slowLane, deadline, work);
    let share = this.shares.get(client);
    if (share === undefined) {
      share = { semaphore: new Semaphore(SLOW_LANE.perClient), users: 0 };
      this.shares.set(client, share);
    }
    share.users += 1;
    try {
      return await this.holding(share.semaphore, deadline, () => this.holding(this.slowLane, deadline, work));
    } finally {
      share.users -= 1;
      if (share.users === 0) this.shares.delete(client);
    }
  }

  /**
   * Runs `work` holding one unit of `semaphore`; a wait for it ends at `deadline` (epoch ms) with {@link slowLaneBusy}.
   * A free unit is taken at once, without a timer.
   */
  private holding<T>(semaphore: Semaphore, deadline: number, work: () => Promise<T>): Promise<T> {
    if (!semaphore.isLocked()) return semaphore.runExclusive(work);
    return withTimeout(semaphore, Math.max(0, deadline - Date.now()), this.slowLaneBusy).runExclusive(work);
  }

  /** `work` in a transaction opened by {@link BEGIN_LONG}; rolled back when it fails. */
  private async runLong<T>(
    connection: Connection,
    work: (connection: Connection, readTimeoutMs: number) => Promise<T>,
  ): Promise<T> {
    await connection.query(BEGIN_LONG);
    try {
      const result = await work(connection, SLOW_LANE.statementMs + READ_TIMEOUT_MARGIN_MS);
      await connection.query('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot roll back has failed: its own `error` event makes it be released as broken.
      await connection.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }

  /** Runs `statement`; `readTimeoutMs` replaces the pool's `query_timeout` on a server connection. */
  private async run<T>(
    connection: Connection,
    { name, text }: PreparedStatement,
    values: unknown[],
    readTimeoutMs?: number,
  ): Promise<StatementResult<T>> {
    this.dataSource.logger.logQuery(text, values);
    const result = await (this.server
      ? connection.query(queryConfig(this.named ? name : undefined, text, values, readTimeoutMs))
      : connection.query(text, values));
    return { rows: result.rows as T[], rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
  }
}

/** One object as `pg` takes a statement, without spreads: no `name` unless given, no `query_timeout` unless given. */
function queryConfig(name: string | undefined, text: string, values: unknown[], readTimeoutMs?: number): QueryConfig {
  if (readTimeoutMs === undefined) return name === undefined ? { text, values } : { name, text, values };
  return name === undefined
    ? { text, values, query_timeout: readTimeoutMs }
    : { name, text, values, query_timeout: readTimeoutMs };
}

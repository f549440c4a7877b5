import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
import { Semaphore, SemaphoreInterface, withTimeout } from 'async-mutex';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { databaseConfig } from '../config/database.config';
import { Connection, lease, onConnection } from './pooled-connection';
import { ReadReplicas } from './read-replicas';

/** A SQL statement with `$1`… parameters; `name` is unique per text in the process (PostgreSQL keeps plans by name). */
export interface PreparedStatement {
  readonly name: string;
  readonly text: string;
}

/** The rows a statement returned, and the rows it changed (`UPDATE`, `DELETE`) or returned. */
interface StatementResult<T> {
  readonly rows: T[];
  readonly rowCount: number;
}

/**
 * Statements whose work grows with the rows they match (a filtered list's exact total) hold at most `connections`
 * of a pool at once, in arrival order, so that they never starve the cheap ones; a statement waits up to `maxWaitMs`
 * for its turn (docs/performance.md, "The slow lane").
 */
export const SLOW_LANE = { connections: 2, maxWaitMs: 25_000 } as const;

/** The slow lane had no room within {@link SLOW_LANE}'s wait: SQLSTATE 53000 (insufficient resources), answered 503. */
export class SlowLaneBusyError extends Error {
  override readonly name = 'SlowLaneBusyError';
  readonly code = '53000';
}

/** Which lane a read waits in: `slow` for statements whose work grows with the rows they match. */
export type StatementLane = 'fast' | 'slow';

/**
 * Runs {@link PreparedStatement}s straight on the driver's pooled connections, past TypeORM's query runner: as named
 * prepared statements, parsed and planned once per connection, unless `DATABASE_PREPARED_STATEMENTS` is false
 * (docs/performance.md, "Data access").
 */
@Injectable()
export class StatementRunner {
  private readonly named: boolean;
  private readonly slowLane: SemaphoreInterface = withTimeout(
    new Semaphore(SLOW_LANE.connections),
    SLOW_LANE.maxWaitMs,
    new SlowLaneBusyError(`No connection for a slow statement within ${SLOW_LANE.maxWaitMs} ms`),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(databaseConfig.KEY) config: ConfigType<typeof databaseConfig>,
    private readonly replicas: ReadReplicas,
  ) {
    this.named = config.preparedStatements;
  }

  /** Runs `statement` on the primary, which has every write. */
  onPrimary<T>(statement: PreparedStatement, values: unknown[]): Promise<StatementResult<T>> {
    const driver = this.dataSource.driver as PostgresDriver;
    return onConnection(lease(driver, 'master'), (connection) => this.run<T>(connection, statement, values));
  }

  /** Runs a read on a replica within its lag bound, else on the primary ({@link ReadReplicas.read}), in `lane`. */
  onReplica<T>(
    statement: PreparedStatement,
    values: unknown[],
    lane: StatementLane = 'fast',
  ): Promise<StatementResult<T>> {
    const read = () => this.replicas.read((connection) => this.run<T>(connection, statement, values));
    return lane === 'slow' ? this.slowLane.runExclusive(read) : read();
  }

  private async run<T>(
    connection: Connection,
    { name, text }: PreparedStatement,
    values: unknown[],
  ): Promise<StatementResult<T>> {
    this.dataSource.logger.logQuery(text, values);
    const result = await (this.named ? connection.query({ name, text, values }) : connection.query(text, values));
    return { rows: result.rows as T[], rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { InjectDataSource } from '@nestjs/typeorm';
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
export interface StatementResult<T> {
  readonly rows: T[];
  readonly rowCount: number;
}

/**
 * Runs {@link PreparedStatement}s straight on the driver's pooled connections, past TypeORM's query runner: as named
 * prepared statements, parsed and planned once per connection, unless `DATABASE_PREPARED_STATEMENTS` is false
 * (docs/performance.md, "Data access").
 */
@Injectable()
export class StatementRunner {
  private readonly named: boolean;

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

  /** Runs a read on a replica within its lag bound, else on the primary ({@link ReadReplicas.read}). */
  onReplica<T>(statement: PreparedStatement, values: unknown[]): Promise<StatementResult<T>> {
    return this.replicas.read((connection) => this.run<T>(connection, statement, values));
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

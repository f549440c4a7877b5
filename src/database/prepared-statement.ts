import type { DataSource } from 'typeorm';

/**
 * A named SQL statement. On a PostgreSQL server each pooled connection parses and plans it once
 * and then only binds values (extended query protocol, "Prepared statements" in the PostgreSQL
 * protocol docs); the embedded database runs its text as an ordinary parameterised query.
 * Statement texts are fixed at start-up: values only ever travel as parameters.
 */
export interface PreparedStatement {
  /** Unique per statement text within the process (a connection keeps one plan per name). */
  readonly name: string;
  readonly text: string;
}

/** The `pg`-style client a TypeORM Postgres query runner lends: a `pg` client or the embedded pool. */
interface StatementClient {
  query(config: { readonly name: string; readonly text: string; readonly values: readonly unknown[] }): Promise<{
    readonly rows: unknown[];
  }>;
}

/**
 * Runs `statement` with `values` on a connection lent by the DataSource's pool (through a TypeORM
 * query runner, so the embedded database's one-lease-at-a-time rule and the pool's error handling
 * apply as to every TypeORM query) and returns its rows.
 *
 * @typeParam Row - the row shape the statement's select list gives.
 * @throws the driver's error (`pg`'s `DatabaseError`, a socket or timeout error) unchanged; the
 *   exception filter maps an unreachable database to 503.
 */
export async function runPrepared<Row>(
  dataSource: DataSource,
  statement: PreparedStatement,
  values: readonly unknown[],
): Promise<Row[]> {
  const runner = dataSource.createQueryRunner();
  try {
    const client = (await runner.connect()) as StatementClient;
    const result = await client.query({ name: statement.name, text: statement.text, values });
    return result.rows as Row[];
  } finally {
    await runner.release();
  }
}

import type { Logger } from 'typeorm';

/** A statement as it was run: its text and its parameters. */
export type RecordedStatement = { readonly sql: string; readonly parameters: readonly unknown[] };

/** A TypeORM logger that keeps the statements run (TypeORM's and `StatementRunner`'s), for EXPLAIN. */
export class StatementRecorder implements Logger {
  readonly statements: RecordedStatement[] = [];
  logQuery(sql: string, parameters: unknown[] = []): void {
    this.statements.push({ sql, parameters });
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

/** The variable naming the URL that could not be connected to. */
export type DatabaseUrlVariable = 'DATABASE_URL' | 'DATABASE_MIGRATION_URL';

/** PgBouncer's answer to a startup parameter it does not know (SQLSTATE 08P01). */
const REFUSED_STARTUP_PARAMETER = /^unsupported startup parameter/i;

/** The database could not be reached at start-up; `message` is one line: where, why, what to do. */
export class DatabaseConnectionError extends Error {
  override readonly name = 'DatabaseConnectionError';

  /**
   * @param url - the `postgres://` URL tried; only its host, port and database are shown.
   * @param variable - the variable that named `url`, so the operator knows what to check.
   */
  constructor(url: string, cause: unknown, variable: DatabaseUrlVariable = 'DATABASE_URL') {
    const { hostname, port, pathname } = new URL(url);
    const reason = cause instanceof Error && cause.message !== '' ? cause.message : String(cause);
    super(
      `Cannot connect to PostgreSQL at ${hostname}:${port || 5432}${pathname} (${reason}): ${advice(variable, reason)}`,
      {
        cause,
      },
    );
    // Nest logs each start-up retry with the error's stack: one line is all an operator needs.
    this.stack = `${this.name}: ${this.message}`;
  }
}

function advice(variable: DatabaseUrlVariable, reason: string): string {
  if (REFUSED_STARTUP_PARAMETER.test(reason))
    return variable === 'DATABASE_URL'
      ? 'DATABASE_URL leads to a connection pooler that refuses startup parameters: set DATABASE_POOLER=pgbouncer'
      : 'DATABASE_MIGRATION_URL must lead to PostgreSQL itself, not to a connection pooler';
  return variable === 'DATABASE_URL'
    ? 'check DATABASE_URL and that the server accepts connections'
    : 'check DATABASE_MIGRATION_URL (DATABASE_URL when unset) and that the server accepts connections';
}

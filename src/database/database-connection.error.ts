/** The database could not be reached at start-up; `message` is one line: where, why, what to do. */
export class DatabaseConnectionError extends Error {
  override readonly name = 'DatabaseConnectionError';

  /** @param url - the `postgres://` URL tried; only its host, port and database are shown. */
  constructor(url: string, cause: unknown) {
    const { hostname, port, pathname } = new URL(url);
    const reason = cause instanceof Error && cause.message !== '' ? cause.message : String(cause);
    super(
      `Cannot connect to PostgreSQL at ${hostname}:${port || 5432}${pathname} (${reason}): ` +
        'check DATABASE_URL and that the server accepts connections',
      { cause },
    );
    // Nest logs each start-up retry with the error's stack: one line is all an operator needs.
    this.stack = `${this.name}: ${this.message}`;
  }
}

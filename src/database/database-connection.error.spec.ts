import { DatabaseConnectionError } from './database-connection.error';

const URL = 'postgres://blog:s3cret@db.internal:6432/blogs';

describe('DatabaseConnectionError', () => {
  it.each([
    [
      'DATABASE_URL',
      new Error('connect ECONNREFUSED 10.0.0.5:6432'),
      'Cannot connect to PostgreSQL at db.internal:6432/blogs (connect ECONNREFUSED 10.0.0.5:6432): ' +
        'check DATABASE_URL and that the server accepts connections',
    ],
    [
      'DATABASE_URL',
      new Error('unsupported startup parameter: statement_timeout'),
      'Cannot connect to PostgreSQL at db.internal:6432/blogs (unsupported startup parameter: statement_timeout): ' +
        'DATABASE_URL leads to a connection pooler that refuses startup parameters: set DATABASE_POOLER=pgbouncer',
    ],
    [
      'DATABASE_MIGRATION_URL',
      new Error('connect ECONNREFUSED 10.0.0.5:6432'),
      'Cannot connect to PostgreSQL at db.internal:6432/blogs (connect ECONNREFUSED 10.0.0.5:6432): ' +
        'check DATABASE_MIGRATION_URL (DATABASE_URL when unset) and that the server accepts connections',
    ],
    [
      'DATABASE_MIGRATION_URL',
      new Error('unsupported startup parameter: lock_timeout'),
      'Cannot connect to PostgreSQL at db.internal:6432/blogs (unsupported startup parameter: lock_timeout): ' +
        'DATABASE_MIGRATION_URL must lead to PostgreSQL itself, not to a connection pooler',
    ],
  ] as const)('%s, %s: one line saying what to do, without the password', (variable, cause, message) => {
    const error = new DatabaseConnectionError(URL, cause, variable);

    expect(error.message).toBe(message);
    expect(error.stack).toBe(`DatabaseConnectionError: ${message}`);
    expect(error.cause).toBe(cause);
    expect(error.message).not.toContain('s3cret');
  });
});

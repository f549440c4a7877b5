import { ServiceUnavailableException } from '@nestjs/common';

/** Node socket errors that mean the database server could not be reached. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** SQLSTATEs that mean "not available now, retry" (docs/reliability.md, "How database faults become 503s"). */
const UNAVAILABLE_SQLSTATE = /^(08...|53000|53300|57014|57P0[123])$/;

// node-postgres sets no code on these.
const DRIVER_MESSAGES =
  /timeout exceeded when trying to connect|Query read timeout|Connection terminated|Client has encountered a connection error|Connection ended/i;

interface ErrorLike {
  readonly code?: unknown;
  readonly message?: unknown;
  readonly driverError?: unknown;
  readonly cause?: unknown;
  readonly errors?: unknown;
}

/**
 * True when `error` (TypeORM, `pg` or socket, possibly wrapped in `driverError`, `cause` or an `AggregateError`)
 * says the database cannot be reached now, rather than a bug or a rejected statement.
 */
export function isDatabaseUnavailableError(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 4) return false;
  const { code, message, driverError, cause, errors } = error as ErrorLike;
  if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.test(message)) return true;
  const nested: readonly unknown[] = [driverError, cause, ...(Array.isArray(errors) ? (errors as unknown[]) : [])];
  return nested.some((inner) => isDatabaseUnavailableError(inner, depth + 1));
}

/** Exception mapper of the error filter: an unreachable database becomes 503, the driver's error its `cause`. */
export function mapDatabaseUnavailable(exception: unknown): ServiceUnavailableException | undefined {
  return isDatabaseUnavailableError(exception)
    ? new ServiceUnavailableException('The database is unavailable; retry later', { cause: exception })
    : undefined;
}

/** PostgreSQL's transaction rollbacks that a retry may pass: serialization_failure and deadlock_detected. */
const ROLLED_BACK_SQLSTATES = new Set(['40001', '40P01']);

/**
 * Exception mapper of the error filter: a transaction PostgreSQL rolled back for a concurrent one (40001, 40P01)
 * becomes 503 with `Retry-After`, the driver's error its `cause`; nothing of it was written.
 */
export function mapTransactionRollback(exception: unknown): ServiceUnavailableException | undefined {
  const { code, driverError } = (exception ?? {}) as ErrorLike;
  const sqlstate = typeof code === 'string' ? code : (driverError as ErrorLike | undefined)?.code;
  return typeof sqlstate === 'string' && ROLLED_BACK_SQLSTATES.has(sqlstate)
    ? new ServiceUnavailableException('The request met a concurrent write and was rolled back; retry', {
        cause: exception,
      })
    : undefined;
}

/** True when `error` is a statement that ran out of time: PostgreSQL's `statement_timeout` (57014) or the driver's read timeout. */
export function isStatementTimeout(error: unknown): boolean {
  const { code, message } = (error ?? {}) as ErrorLike;
  return code === '57014' || (typeof message === 'string' && message.includes('Query read timeout'));
}

/** True when `error` is PostgreSQL's deadlock (SQLSTATE 40P01): its transaction was rolled back and may be run again. */
export function isDeadlock(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '40P01';
}

/** True when `error` is PostgreSQL's unique violation (SQLSTATE 23505) of one of `constraints` (index names). */
export function isUniqueViolation(error: unknown, constraints: readonly string[]): boolean {
  return isViolation(error, '23505', constraints);
}

/**
 * True when `error` is PostgreSQL's foreign-key violation (SQLSTATE 23503), of one of `constraints` (constraint names)
 * when given: a row refers to one that is not there (an insert whose parent was deleted), or a delete leaves referrers.
 */
export function isForeignKeyViolation(error: unknown, constraints?: readonly string[]): boolean {
  return isViolation(error, '23503', constraints);
}

/** `error` has SQLSTATE `code` (as `pg`, PGlite and TypeORM's `QueryFailedError` carry it) and, if asked, one of `constraints`. */
function isViolation(error: unknown, code: string, constraints?: readonly string[]): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code: actual, constraint } = error as { code?: unknown; constraint?: unknown };
  if (actual !== code) return false;
  return constraints === undefined || (typeof constraint === 'string' && constraints.includes(constraint));
}

import { Client, type ClientConfig } from 'pg';

/** node-postgres's message when `query_timeout` expires before the server answered. */
const READ_TIMEOUT_MESSAGE = 'Query read timeout';

type QueryMethod = (...args: readonly unknown[]) => unknown;

/**
 * A `pg` client that closes its connection when a query hits the client-side `query_timeout`.
 *
 * node-postgres answers the caller with "Query read timeout" but keeps the connection, with the
 * unanswered query still in flight on it; the pool then lends that connection again and every
 * later query on it waits behind the stuck one and times out too, so a silent network that heals
 * goes on giving 503s until the pool happens to drop the connection. Ending the client makes
 * `pg-pool` discard it on release (it checks `_ending`) and, with a query still active,
 * `Client.end()` destroys the socket, so the next request gets a fresh connection.
 *
 * Covers the call forms used here: the promise form (TypeORM) and a trailing callback (pg-pool).
 * A Submittable (`QueryStream`, `Cursor`) or a config object carrying its own `callback` reports
 * the timeout without closing the connection.
 *
 * Passed to TypeORM as `extra.Client`, which `pg-pool` uses to create its connections.
 */
export class ReadTimeoutClosingClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    // pg's query() has a dozen overloads; wrapping the instance method keeps all of them intact.
    const query = this.query.bind(this) as QueryMethod;
    const closeOnReadTimeout = (error: unknown): void => {
      if (error instanceof Error && error.message === READ_TIMEOUT_MESSAGE) void this.end().catch(() => undefined);
    };
    const wrapped: QueryMethod = (...args) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        const callback = last as (error: unknown, ...rest: readonly unknown[]) => void;
        return query(...args.slice(0, -1), (error: unknown, ...rest: readonly unknown[]) => {
          if (error) closeOnReadTimeout(error);
          callback(error, ...rest);
        });
      }
      const result = query(...args);
      if (result instanceof Promise) result.catch(closeOnReadTimeout);
      return result;
    };
    this.query = wrapped as Client['query'];
  }
}

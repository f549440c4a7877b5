import { Client, type ClientConfig } from 'pg';

const READ_TIMEOUT_MESSAGE = 'Query read timeout';

type QueryMethod = (...args: readonly unknown[]) => unknown;

/**
 * A `pg` client that closes its connection when a promise or trailing-callback query hits `query_timeout`,
 * so the pool never lends it again (docs/reliability.md, "How database faults become 503s").
 */
export class ReadTimeoutClosingClient extends Client {
  constructor(config?: string | ClientConfig) {
    super(config);
    // Wrapping the instance method keeps all of pg's query() overloads.
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

import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';

/** What {@link drainHttpServer} found. */
export interface DrainResult {
  /** Connections still busy when the time ran out, destroyed with their requests. */
  readonly cut: number;
  /** How long the drain took, in ms. */
  readonly ms: number;
}

/** How often idle keep-alive connections are closed while draining, in ms. */
const IDLE_SWEEP_MS = 10;

/**
 * Stops `server` from accepting connections and waits for the requests in flight to finish, at
 * most `timeoutMs`.
 *
 * `server.close()` alone is not enough: it stops listening and (Node.js ≥ 19) closes the
 * connections idle at that moment, but a keep-alive connection busy with a request stays open
 * after its response, and is even served further requests, until the keep-alive timeout. So while
 * draining, requests arriving on open connections are answered with `Connection: close`, and
 * connections are closed as soon as they are idle (swept every 10 ms with
 * `server.closeIdleConnections()`). When the time is up, the remaining connections are destroyed
 * (`server.closeAllConnections()`).
 *
 * Nothing of this runs before the drain starts: the request path pays nothing for it.
 *
 * @param server - a listening `node:http` server.
 * @param timeoutMs - how long requests in flight may still take, in ms.
 * @returns when every connection is closed: how many were cut off and how long it took.
 */
export function drainHttpServer(server: Server, timeoutMs: number): Promise<DrainResult> {
  const started = Date.now();
  // A request already on a kept-alive connection is served, but its connection closed afterwards.
  const closeAfterResponse = (
    _request: unknown,
    response: { headersSent: boolean; setHeader(name: string, value: string): unknown },
  ): void => {
    if (!response.headersSent) response.setHeader('Connection', 'close');
  };
  server.prependListener('request', closeAfterResponse);
  return new Promise<DrainResult>((resolve) => {
    let cut = 0;
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => {
      server.getConnections((_error, count) => {
        cut = count;
        server.closeAllConnections();
      });
    }, timeoutMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      server.removeListener('request', closeAfterResponse);
      resolve({ cut, ms: Date.now() - started });
    });
  });
}

/** Options of {@link enableGracefulShutdown}. */
export interface GracefulShutdownOptions {
  /** How long in-flight requests may still run after the signal, in ms (`SHUTDOWN_TIMEOUT_MS`). */
  readonly timeoutMs: number;
  readonly logger: LoggerService;
  /** Ends the process; `process.exit` outside tests. */
  readonly exit?: (code: number) => void;
  /** Signals to handle; SIGTERM (orchestrators) and SIGINT (Ctrl-C) by default. */
  readonly signals?: readonly NodeJS.Signals[];
}

/**
 * Extra time, beyond the drain, allowed for closing the application (lifecycle hooks, then the
 * database pool, whose calls are bounded by the database timeouts) before the process exits anyway.
 */
export const CLOSE_GRACE_MS = 5_000;

/**
 * On SIGTERM or SIGINT: stop accepting connections, let the requests in flight finish
 * ({@link drainHttpServer}, at most `timeoutMs`), close the application (Nest's shutdown hooks:
 * the TypeORM connection pool, or the embedded database and its `DATA_DIR` lock), then exit —
 * 0 when every request finished, 1 when some had to be cut off or closing failed. A second
 * signal while draining cuts the remaining requests at once.
 *
 * Used instead of Nest's `enableShutdownHooks()`, which closes the application but then kills
 * the process with the same signal (no exit code 0), and whose HTTP close waits for idle
 * keep-alive connections to time out.
 *
 * @param app - the application, listening.
 */
export function enableGracefulShutdown(app: INestApplication, options: GracefulShutdownOptions): void {
  const { timeoutMs, logger } = options;
  const exit = options.exit ?? ((code: number): void => process.exit(code));
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const server = app.getHttpServer() as Server;
  let shuttingDown = false;

  const shutDown = async (signal: NodeJS.Signals): Promise<void> => {
    if (shuttingDown) {
      logger.warn?.(`${signal} again: cutting off the requests still in flight`, 'Shutdown');
      server.closeAllConnections();
      return;
    }
    shuttingDown = true;
    // Whatever hangs below, the process ends.
    setTimeout(() => {
      logger.error(`Shutdown did not finish within ${timeoutMs + CLOSE_GRACE_MS} ms; exiting`, undefined, 'Shutdown');
      exit(1);
    }, timeoutMs + CLOSE_GRACE_MS).unref();
    logger.log(
      `${signal} received: no new connections; waiting up to ${timeoutMs} ms for requests in flight`,
      'Shutdown',
    );
    let code = 0;
    try {
      const drained = await drainHttpServer(server, timeoutMs);
      if (drained.cut > 0) {
        code = 1;
        logger.error(
          `${drained.cut} connection(s) still busy after ${timeoutMs} ms were cut off`,
          undefined,
          'Shutdown',
        );
      } else {
        logger.log(`Requests in flight finished in ${drained.ms} ms`, 'Shutdown');
      }
      await app.close();
      logger.log('Closed; exiting', 'Shutdown');
    } catch (error) {
      code = 1;
      logger.error(`Shutdown failed: ${error instanceof Error ? error.message : String(error)}`, undefined, 'Shutdown');
    }
    exit(code);
  };

  for (const signal of signals) process.on(signal, (received: NodeJS.Signals) => void shutDown(received));
}

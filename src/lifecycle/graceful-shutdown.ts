import type { Server } from 'node:http';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { CLOSE_GRACE_MS } from './shutdown.constants';

/** What {@link drainHttpServer} found: connections cut off when the time ran out, and the drain's duration in ms. */
interface DrainResult {
  readonly cut: number;
  readonly ms: number;
}

const IDLE_SWEEP_MS = 10;

/**
 * Stops accepting connections, closes keep-alive ones as soon as they are idle, and after
 * `timeoutMs` cuts off those still busy. Resolves when every connection is closed.
 */
export function drainHttpServer(server: Server, timeoutMs: number): Promise<DrainResult> {
  const started = Date.now();
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

/** Options of {@link enableGracefulShutdown}: drain time in ms, logger, exit function and signals. */
interface GracefulShutdownOptions {
  readonly timeoutMs: number;
  readonly logger: LoggerService;
  /** `process.exit` by default. */
  readonly exit?: (code: number) => void;
  /** SIGTERM and SIGINT by default. */
  readonly signals?: readonly NodeJS.Signals[];
}

/**
 * On SIGTERM or SIGINT: drain the HTTP server (at most `timeoutMs`), close the application, then
 * exit 0, or 1 when requests were cut off or closing failed. A second signal cuts requests at once.
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

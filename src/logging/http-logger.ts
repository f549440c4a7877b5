import type { IncomingMessage, ServerResponse } from 'node:http';
import { DestinationStream, LevelWithSilent, Logger, pino, TransportSingleOptions } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import { matchedRouteOf } from '../common/http/matched-route';
import type { LoggingConfig } from '../config/logging.config';
import { assignRequestId } from './request-id';

/** Paths pino blanks wherever a log object carries them: no credential in a log line. */
const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
];

/** Longest path written to a log line, in characters; a longer one is cut and ends with `…`. */
const MAX_LOGGED_PATH = 512;

/** What is logged of a request: id, method and path; never headers, query string or body. */
interface LoggedRequest {
  readonly id: unknown;
  readonly method: string | undefined;
  readonly url: string;
}

/** The request as logged, see {@link LoggedRequest}. */
function serializeRequest(request: IncomingMessage & { id?: unknown; originalUrl?: string }): LoggedRequest {
  const raw = request.originalUrl ?? request.url ?? '';
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  return {
    id: request.id,
    method: request.method,
    url: path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path,
  };
}

/** What is logged of an error: class, message and stack. */
interface LoggedError {
  readonly type: string;
  readonly message: string;
  readonly stack?: string;
}

/** An error as logged; never its other properties, which may carry request data. */
function serializeError(error: Error): LoggedError {
  return { type: error.name, message: error.message, stack: error.stack };
}

function levelOf(_request: IncomingMessage, response: ServerResponse, error?: Error): LevelWithSilent {
  return error !== undefined || response.statusCode >= 500 ? 'error' : 'info';
}

/** The logging configuration, and a stream to write JSON lines to instead of stdout. */
interface HttpLoggerOptions extends LoggingConfig {
  readonly destination?: DestinationStream;
}

function prettyTransport(): TransportSingleOptions | undefined {
  try {
    require.resolve('pino-pretty');
  } catch {
    return undefined; // production images carry production dependencies only: JSON lines
  }
  return { target: 'pino-pretty', options: { singleLine: true, ignore: 'pid,hostname' } };
}

/** The root pino logger: JSON lines on stdout, written asynchronously; pretty lines in development when installed. */
export function createRootLogger(options: HttpLoggerOptions): Logger {
  const base = {
    level: options.level,
    redact: { paths: [...REDACTED_PATHS], censor: '[Redacted]' },
  };
  if (options.destination !== undefined) return pino(base, options.destination);
  const transport = options.nodeEnv === 'development' ? prettyTransport() : undefined;
  if (transport !== undefined) return pino({ ...base, transport });
  return pino(base, pino.destination({ dest: 1, sync: false }));
}

/**
 * The request logger (pino-http): one line per finished request with `req` {id, method, url},
 * `res` {statusCode}, `route` (the template, when one matched) and `responseTime` (ms).
 */
export function createHttpLogger(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: assignRequestId,
    wrapSerializers: false,
    serializers: {
      req: serializeRequest,
      res: (response: ServerResponse): { statusCode: number } => ({ statusCode: response.statusCode }),
      err: serializeError,
    },
    customLogLevel: levelOf,
    customSuccessObject: (request, _response, value: object) => ({ ...value, route: matchedRouteOf(request) }),
    // pino-http's own Error for a 5xx carries no cause; the exception filter logs the real one.
    customErrorObject: (request, response, error, value) => ({
      res: (value as { res: unknown }).res,
      responseTime: (value as { responseTime: unknown }).responseTime,
      route: matchedRouteOf(request),
      ...(response.statusCode >= 500 && error.message.startsWith('failed with status code') ? {} : { err: error }),
    }),
  });
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import { DestinationStream, LevelWithSilent, Logger, pino, TransportSingleOptions } from 'pino';
import { HttpLogger, pinoHttp } from 'pino-http';
import type { LogLevel, NodeEnv } from '../config/environment';
import { assignRequestId } from './request-id';

/**
 * Paths that pino's redaction blanks wherever a log object carries them. The request and response
 * serializers below never copy headers, so these matter only to code that logs a header object
 * of its own; they keep the rule "no credential in a log line" true for such code too.
 */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
];

/** Longest path written to a log line, in characters; a longer one is cut and marked with `…`. */
const MAX_LOGGED_PATH = 512;

/** What is logged of a request: never headers, query string or body (they may hold secrets). */
export interface LoggedRequest {
  readonly id: unknown;
  readonly method: string | undefined;
  /** The path as the client sent it, without the query string. */
  readonly url: string;
}

/** The request as logged: id, method and path; see {@link LoggedRequest}. */
export function serializeRequest(request: IncomingMessage & { id?: unknown; originalUrl?: string }): LoggedRequest {
  const raw = request.originalUrl ?? request.url ?? '';
  const queryAt = raw.indexOf('?');
  const path = queryAt === -1 ? raw : raw.slice(0, queryAt);
  return {
    id: request.id,
    method: request.method,
    url: path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path,
  };
}

/** What is logged of an error. */
export interface LoggedError {
  readonly type: string;
  readonly message: string;
  readonly stack?: string;
}

/**
 * An error as logged: its class, message and stack only. pino's standard serializer would also
 * copy every enumerable property, and some carry request data (TypeORM's `QueryFailedError` has
 * the statement's `parameters`, i.e. the values of a body).
 */
export function serializeError(error: Error): LoggedError {
  return { type: error.name, message: error.message, stack: error.stack };
}

/** The route template that served the request (Express's `req.route.path`), when one did. */
function routeOf(request: IncomingMessage): string | undefined {
  const route = (request as IncomingMessage & { route?: { path?: unknown } }).route;
  return typeof route?.path === 'string' ? route.path : undefined;
}

/** 5xx (and a response that failed to send) at `error`; everything else at `info`. */
function levelOf(_request: IncomingMessage, response: ServerResponse, error?: Error): LevelWithSilent {
  return error !== undefined || response.statusCode >= 500 ? 'error' : 'info';
}

/** Where and how log lines are written. */
export interface HttpLoggerOptions {
  readonly level: LogLevel;
  readonly nodeEnv: NodeEnv;
  /** A stream to write JSON lines to instead of stdout (tests capture logs through it). */
  readonly destination?: DestinationStream;
}

/** pino-pretty's transport when it is installed (a development dependency), else undefined. */
function prettyTransport(): TransportSingleOptions | undefined {
  try {
    require.resolve('pino-pretty');
  } catch {
    return undefined; // production images carry production dependencies only: JSON lines
  }
  return { target: 'pino-pretty', options: { singleLine: true, ignore: 'pid,hostname' } };
}

/**
 * The application's root pino logger: JSON lines on stdout, or pretty lines in development when
 * pino-pretty is installed. Stdout is written asynchronously (pino's `sync: false` destination,
 * flushed on exit), so a request never waits for the terminal or the log collector.
 */
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
 * The request logger (pino-http): one line per request when its response is finished (or the
 * connection closed first): `req` {id, method, url path}, `res` {statusCode}, `route` (the route
 * template, when a route matched) and `responseTime` (milliseconds). The request id comes from
 * {@link assignRequestId}. Serializers get the raw objects (`wrapSerializers: false`) and copy
 * three fields, so no header, query string or body ever reaches a line.
 *
 * @param logger - the root logger from {@link createRootLogger}.
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
    customSuccessObject: (request, _response, value: object) => ({ ...value, route: routeOf(request) }),
    // pino-http invents an Error ("failed with status code 500") for a 5xx; its stack is pino-http's
    // own, so only the status is kept. The cause is logged by the exception filter, with its stack.
    customErrorObject: (request, response, error, value) => ({
      res: (value as { res: unknown }).res,
      responseTime: (value as { responseTime: unknown }).responseTime,
      route: routeOf(request),
      ...(response.statusCode >= 500 && error.message.startsWith('failed with status code') ? {} : { err: error }),
    }),
  });
}

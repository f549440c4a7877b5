import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { InvalidParam, PROBLEM_TYPES, problemTypeOf, ValidationProblemException } from './problem-types';

/**
 * The body of every error response, a problem details object (RFC 9457 §3.1) with the 1.x members `statusCode`,
 * `error` and `message` as extensions (§3.2); `errors` only on a `validation-error` (docs/api.md, "Errors").
 */
export interface ErrorBody {
  readonly type: string;
  readonly title: string;
  readonly status: number;
  readonly detail: string;
  readonly instance: string;
  readonly statusCode: number;
  readonly error: string;
  readonly message: string | readonly string[];
  readonly errors?: readonly InvalidParam[];
}

/** The media type of a problem details object (RFC 9457 §3). */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** The path under which `GET /problems/<name>` serves the problem types' pages. */
export const PROBLEMS_PATH = 'problems';

/** The media types `accept` (an `Accept` header) names with a q above 0, lower-cased, without parameters. */
function namedMediaTypes(accept: string | undefined): Set<string> {
  const named = new Set<string>();
  for (const range of (accept ?? '').split(',')) {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    const q = parameters.find((p) => /^q\s*=/.test(p));
    if (type !== '' && (q === undefined || Number(q.split('=')[1]) > 0)) named.add(type);
  }
  return named;
}

/**
 * The `Content-Type` of an error answer to a request with `accept`: `application/problem+json`, unless it names
 * `application/json` and not `application/problem+json` (contract 1.8).
 */
export function problemContentType(accept: string | undefined): string {
  const named = namedMediaTypes(accept);
  return named.has('application/json') && !named.has(PROBLEM_MEDIA_TYPE) ? 'application/json' : PROBLEM_MEDIA_TYPE;
}

/** Turns an error that is no `HttpException` into one (e.g. a lost database into 503), or gives undefined. */
type ExceptionMapper = (exception: unknown) => HttpException | undefined;

/** Seconds a client should wait before retrying after a 503 (RFC 9110 §10.2.3). */
export const RETRY_AFTER_SECONDS = 5;

/** Bounds of an error body's `message`: characters of one message, and messages of a list. */
export const MAX_ERROR_MESSAGE_LENGTH = 300;
export const MAX_ERROR_MESSAGES = 20;

const reasonPhrase = (status: number): string => STATUS_CODES[status] ?? 'Error';

const capped = (message: string): string =>
  message.length > MAX_ERROR_MESSAGE_LENGTH ? `${message.slice(0, MAX_ERROR_MESSAGE_LENGTH - 1)}…` : message;

function messageOf(exception: HttpException): string | string[] {
  const response = exception.getResponse();
  if (typeof response === 'string') return capped(response);
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return capped(message);
  if (Array.isArray(message) && message.every((m) => typeof m === 'string')) {
    return message.slice(0, MAX_ERROR_MESSAGES).map(capped);
  }
  return capped(exception.message);
}

const detailOf = (message: string | readonly string[]): string =>
  typeof message === 'string' ? message : message.join('; ');

const invalidParamsOf = (exception: unknown): readonly InvalidParam[] | undefined =>
  exception instanceof ValidationProblemException
    ? exception.errors.slice(0, MAX_ERROR_MESSAGES).map((error) => ({ ...error, detail: capped(error.detail) }))
    : undefined;

/** The `about:blank` problem of `status` at the path `instance`: the status says it all (RFC 9457 §4.2.1). */
export const blankProblem = (status: number, message: string | string[], instance: string): ErrorBody => ({
  type: 'about:blank',
  title: reasonPhrase(status),
  status,
  detail: detailOf(message),
  instance,
  statusCode: status,
  error: reasonPhrase(status),
  message,
});

/** The request's path, without its query, as the client sent it (`instance`, RFC 9457 §3.1.5). */
function pathOf(request: IncomingMessage & { originalUrl?: string }): string {
  const url = request.originalUrl ?? request.url ?? '/';
  const end = url.indexOf('?');
  return end === -1 ? url : url.slice(0, end);
}

// Nest maps only body-parser's SyntaxError; its other client errors (`expose: true`) would become 500s.
function exposedClientErrorStatus(exception: unknown): number | undefined {
  if (!(exception instanceof Error)) return undefined;
  const { status, expose } = exception as Error & { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/**
 * Answers every error with an {@link ErrorBody} (the only code that writes one): an `HttpException` (or what `mappers`
 * make of an error) keeps its status, with `Retry-After` on 503 and `WWW-Authenticate` on 401; anything else is
 * logged and answered 500. A problem type's `type` is `<publicUrl>/problems/<name>`; others are `about:blank`.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionsFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly mappers: readonly ExceptionMapper[],
    private readonly publicUrl: string,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const response = host.switchToHttp().getResponse<unknown>();
    const request = host.switchToHttp().getRequest<IncomingMessage>();
    const { status, message, cause } = this.classify(exception);
    // An error is never stored, also when it follows a public read's headers (RFC 9111 §5.2.2.5).
    httpAdapter.setHeader(response, 'Cache-Control', 'no-store');
    (response as { removeHeader?: (name: string) => void }).removeHeader?.('Surrogate-Key');

    if (status === HttpStatus.UNAUTHORIZED) {
      const challenge = (exception as { challenge?: unknown }).challenge;
      httpAdapter.setHeader(response, 'WWW-Authenticate', typeof challenge === 'string' ? challenge : 'Bearer');
    }
    if (status === HttpStatus.SERVICE_UNAVAILABLE) {
      httpAdapter.setHeader(response, 'Retry-After', String(RETRY_AFTER_SECONDS));
    }
    httpAdapter.setHeader(response, 'Content-Type', problemContentType(request.headers.accept));
    (response as { vary?: (name: string) => void }).vary?.('Accept');
    httpAdapter.reply(response, this.problem(cause, status, message, request), status);
  }

  private problem(cause: unknown, status: number, message: string | string[], request: IncomingMessage): ErrorBody {
    const name = problemTypeOf(cause, status);
    const body = blankProblem(status, message, pathOf(request));
    if (name === undefined) return body;
    const errors = name === 'validation-error' ? invalidParamsOf(cause) : undefined;
    return {
      ...body,
      type: `${this.publicUrl}/${PROBLEMS_PATH}/${name}`,
      title: PROBLEM_TYPES[name].title,
      ...(errors === undefined ? {} : { errors }),
    };
  }

  private classify(thrown: unknown): { status: number; message: string | string[]; cause: unknown } {
    const exception = this.mappers.reduce<unknown>(
      (e, map) => (e instanceof HttpException ? e : (map(e) ?? e)),
      thrown,
    );
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logError(exception);
      return { status, message: messageOf(exception), cause: exception };
    }
    const clientStatus = exposedClientErrorStatus(exception);
    if (clientStatus !== undefined) {
      const message = capped((exception as Error).message);
      // body-parser's client errors are about the body alone: a 400 is the body's `validation-error`.
      const cause = clientStatus === 400 ? ValidationProblemException.body('', message) : exception;
      return { status: clientStatus, message, cause };
    }
    this.logger.error(
      exception instanceof Error ? exception.message : String(exception),
      exception instanceof Error ? exception.stack : undefined,
    );
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error', cause: exception };
  }

  // A mapped error is logged by what caused it, without a stack (expected under an outage).
  private logError(exception: HttpException): void {
    const { cause } = exception;
    if (cause instanceof Error) this.logger.error(`${exception.message}: ${cause.message}`);
    else this.logger.error(exception.message, exception.stack);
  }
}

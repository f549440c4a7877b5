import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { STATUS_CODES } from 'node:http';

/** The body of every error response (docs/api.md, "Errors"). */
export interface ErrorBody {
  readonly statusCode: number;
  readonly error: string;
  readonly message: string | readonly string[];
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

// Nest maps only body-parser's SyntaxError; its other client errors (`expose: true`) would become 500s.
function exposedClientErrorStatus(exception: unknown): number | undefined {
  if (!(exception instanceof Error)) return undefined;
  const { status, expose } = exception as Error & { status?: unknown; expose?: unknown };
  return typeof status === 'number' && status >= 400 && status < 500 && expose === true ? status : undefined;
}

/**
 * Answers every error with an {@link ErrorBody}: an `HttpException` (or what `mappers` make of an error) keeps its
 * status, with `Retry-After` on 503 and `WWW-Authenticate` on 401; anything else is logged and answered 500.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionsFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly mappers: readonly ExceptionMapper[] = [],
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const response = host.switchToHttp().getResponse<unknown>();
    const { status, message } = this.classify(exception);
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
    const body: ErrorBody = { statusCode: status, error: reasonPhrase(status), message };
    httpAdapter.reply(response, body, status);
  }

  private classify(thrown: unknown): { status: number; message: string | string[] } {
    const exception = this.mappers.reduce<unknown>(
      (e, map) => (e instanceof HttpException ? e : (map(e) ?? e)),
      thrown,
    );
    if (exception instanceof HttpException) {
      const status = exception.getStatus();
      if (status >= 500) this.logError(exception);
      return { status, message: messageOf(exception) };
    }
    const clientStatus = exposedClientErrorStatus(exception);
    if (clientStatus !== undefined) {
      return { status: clientStatus, message: capped((exception as Error).message) };
    }
    this.logger.error(
      exception instanceof Error ? exception.message : String(exception),
      exception instanceof Error ? exception.stack : undefined,
    );
    return { status: HttpStatus.INTERNAL_SERVER_ERROR, message: 'Internal server error' };
  }

  // A mapped error is logged by what caused it, without a stack (expected under an outage).
  private logError(exception: HttpException): void {
    const { cause } = exception;
    if (cause instanceof Error) this.logger.error(`${exception.message}: ${cause.message}`);
    else this.logger.error(exception.message, exception.stack);
  }
}

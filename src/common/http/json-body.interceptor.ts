import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { json } from 'body-parser';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { from, Observable, switchMap } from 'rxjs';
import { isJsonContentType } from './json-content-type';

/** Largest accepted request body, in bytes (1 MiB; exactly that is accepted). */
export const MAX_BODY_BYTES = 1_048_576;

/** What `request.body` holds when no JSON value was read: `EMPTY` (400) or `UNSUPPORTED_MEDIA_TYPE` (415). */
export class UnreadBody {
  static readonly EMPTY = new UnreadBody('empty');
  static readonly UNSUPPORTED_MEDIA_TYPE = new UnreadBody('unsupported media type');

  private constructor(readonly reason: string) {}
}

type BodyRequest = IncomingMessage & { body?: unknown };

const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

// body-parser hands on an empty JSON body as `{}`, but empty text is no JSON value (RFC 8259 §2).
const emptyJsonBodies = new WeakSet<IncomingMessage>();

/** body-parser `verify` callback: notes a JSON body of zero bytes. */
export function noteEmptyJsonBody(request: IncomingMessage, _response: ServerResponse, raw: Buffer): void {
  if (raw.length === 0) emptyJsonBodies.add(request);
}

/** Replaces a body that was not read, or was empty, by the matching {@link UnreadBody}. */
export function classifyUnreadBody(request: BodyRequest): void {
  if (request.body === undefined) {
    const json = isJsonContentType(request.headers['content-type']);
    request.body = json ? UnreadBody.EMPTY : UnreadBody.UNSUPPORTED_MEDIA_TYPE;
  } else if (emptyJsonBodies.has(request)) {
    request.body = UnreadBody.EMPTY;
  }
}

/**
 * Reads the JSON body of a POST, PUT or PATCH after the guards (docs/security.md), at most {@link MAX_BODY_BYTES}.
 * @throws body-parser's client errors: 413 too large, 400 malformed JSON or bad encoding.
 */
@Injectable()
export class JsonBodyInterceptor implements NestInterceptor {
  private readonly parse = promisify<BodyRequest, ServerResponse, void>(
    json({
      limit: MAX_BODY_BYTES,
      type: (request: IncomingMessage): boolean => isJsonContentType(request.headers['content-type']),
      strict: true,
      verify: noteEmptyJsonBody,
    }),
  );

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const request = http.getRequest<BodyRequest>();
    if (!METHODS_WITH_BODY.has(request.method ?? '')) return next.handle();
    return from(this.parse(request, http.getResponse<ServerResponse>())).pipe(
      switchMap(() => {
        classifyUnreadBody(request);
        return next.handle();
      }),
    );
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ArgumentMetadata,
  BadRequestException,
  Injectable,
  PipeTransform,
  UnsupportedMediaTypeException,
} from '@nestjs/common';

/**
 * `type-is`, the media-type matcher of Express (`req.is`) and body-parser (its `type` option). It
 * ships no type declarations, so the one function used is typed here.
 */
const typeIs = require('type-is') as {
  /** The first of `types` that the media type of a `Content-Type` value matches (parameters ignored), else false. */
  readonly is: (contentType: string, types: readonly string[]) => string | false;
};

/** The media type of request bodies (API contract, "Request bodies"). */
export const JSON_MEDIA_TYPE = 'application/json';

/** The one charset of JSON bodies: JSON exchanged between systems is UTF-8 (RFC 8259 §8.1). */
export const JSON_CHARSET = 'utf-8';

/**
 * A `charset` parameter of a `Content-Type` value (RFC 9110 §8.3.1, §5.6.6), its value a
 * quoted-string (group 1) or anything up to the next `;` (group 2). Deliberately loose: it also
 * finds `charset=` where a strict parser would see none (inside another parameter's quoted value,
 * around stray spaces), so a value read by body-parser's more lenient parser is always among those
 * checked here.
 */
const CHARSET_PARAMETER = /;[\t ]*charset[\t ]*=[\t ]*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/gi;

/** Every `charset` value in a `Content-Type` value, unquoted, trimmed and lower-cased. */
function charsetsOf(contentType: string): string[] {
  return [...contentType.matchAll(CHARSET_PARAMETER)].map(([, quoted, token]) =>
    (quoted === undefined ? token.trim() : quoted.replace(/\\(.)/g, '$1')).toLowerCase(),
  );
}

/**
 * Whether a `Content-Type` value announces a body this service reads: `application/json` as
 * `type-is` matches it (case-insensitive, parameters allowed, so `application/merge-patch+json`,
 * `text/json` and other `+json` types are not it), with no `charset` or `charset=utf-8` in any
 * case, quoted or not. Another charset (`latin1`, `utf-16`, `utf8`: not the registered name, and
 * body-parser refuses it) is not supported: 415.
 *
 * @param contentType - the header value; undefined when the request has none.
 */
export function isJsonContentType(contentType: string | undefined): boolean {
  if (contentType === undefined || typeIs.is(contentType, [JSON_MEDIA_TYPE]) === false) return false;
  return charsetsOf(contentType).every((charset) => charset === JSON_CHARSET);
}

/**
 * What `request.body` holds when no JSON value was read, set by {@link classifyUnreadBody} from the
 * request's `Content-Type` and read by {@link JsonBodyPipe}, which answers it in the contract's
 * order of checks (after the token and the id).
 */
export class UnreadBody {
  /** The content type is JSON but the body is empty (none sent, `Content-Length: 0`, or zero chunks): 400. */
  static readonly EMPTY = new UnreadBody('empty');
  /** The content type is missing, another type, or JSON in another charset; the body was not read: 415. */
  static readonly UNSUPPORTED_MEDIA_TYPE = new UnreadBody('unsupported media type');

  private constructor(readonly reason: string) {}
}

/** Requests whose JSON body was read and had no bytes at all (body-parser turns those into `{}`). */
const emptyJsonBodies = new WeakSet<IncomingMessage>();

/**
 * body-parser `verify` callback of the JSON parser: notes a body of zero bytes, which body-parser
 * would otherwise hand on as `{}` (an empty text is no JSON value, RFC 8259 §2).
 */
export function noteEmptyJsonBody(request: IncomingMessage, _response: ServerResponse, raw: Buffer): void {
  if (raw.length === 0) emptyJsonBodies.add(request);
}

/**
 * Express middleware placed right after the JSON body parser: replaces a body that was not read
 * (`undefined`) or was empty by an {@link UnreadBody}, deciding from the `Content-Type` header with
 * the same rule as the parser ({@link isJsonContentType}). A JSON request without a body (no
 * `Content-Length`, no `Transfer-Encoding`) thus is an empty body (400), not a wrong type (415).
 */
export function classifyUnreadBody(
  request: IncomingMessage & { body?: unknown },
  _response: ServerResponse,
  next: () => void,
): void {
  if (request.body === undefined) {
    const json = isJsonContentType(request.headers['content-type']);
    request.body = json ? UnreadBody.EMPTY : UnreadBody.UNSUPPORTED_MEDIA_TYPE;
  } else if (emptyJsonBodies.has(request)) {
    request.body = UnreadBody.EMPTY;
  }
  next();
}

/**
 * Global pipe, placed before `ValidationPipe`, for `@Body()` parameters (the whole body):
 * - {@link UnreadBody.UNSUPPORTED_MEDIA_TYPE} → 415 naming the supported type and charset;
 * - {@link UnreadBody.EMPTY}, a JSON array or any other non-object → 400: a body must be a JSON
 *   object (API contract);
 * - objects or arrays nested more than {@link MAX_BODY_DEPTH} levels deep → 400 (they would
 *   overflow class-transformer's recursion: a 500);
 * - an own `__proto__`, `constructor` or `prototype` key → 400 naming it: `ValidationPipe` and
 *   class-transformer drop these before validating, so `forbidNonWhitelisted` would never see them
 *   and they would pass silently. Checked for query objects too.
 *
 * As a pipe it runs after the guard (401) and the id parameter (400), as the contract orders.
 *
 * `undefined` (a body nobody classified: the pipe used without `setupApp`, as in unit tests of the
 * pipes alone) is taken as unread and answered 415, as before {@link classifyUnreadBody} existed;
 * in the application every unread body is classified from its `Content-Type` first.
 *
 * @throws UnsupportedMediaTypeException (415), BadRequestException (400) as listed above.
 */
@Injectable()
export class JsonBodyPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type === 'query') return rejectReservedKeys(value);
    if (metadata.type !== 'body') return value;
    if (value === UnreadBody.UNSUPPORTED_MEDIA_TYPE || value === undefined) {
      throw new UnsupportedMediaTypeException(
        `Content-Type must be ${JSON_MEDIA_TYPE} (optionally with charset=${JSON_CHARSET})`,
      );
    }
    if (value === UnreadBody.EMPTY) throw new BadRequestException('request body must be a JSON object, not empty');
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new BadRequestException('request body must be a JSON object');
    }
    if (nestingDepth(value, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
      throw new BadRequestException(
        `request body must not nest objects or arrays more than ${MAX_BODY_DEPTH} levels deep`,
      );
    }
    return rejectReservedKeys(value);
  }
}

/**
 * Deepest nesting of objects and arrays a body may have (the body object itself is level 1).
 * class-transformer copies a body recursively before validation, so a value nested thousands of
 * levels deep (a 1 MiB body allows ~100,000) would overflow the stack and end as a 500; no valid
 * body nests at all (its fields are strings), so a generous bound costs nothing.
 */
export const MAX_BODY_DEPTH = 32;

/**
 * How deep objects and arrays nest in `value` (0 for a primitive), found without recursion and
 * given up as soon as it passes `limit` (then `limit + 1`). A valid body (an object of strings)
 * costs one look at each of its values.
 */
export function nestingDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 1;
  const pending: [object, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [object, number];
    for (const child of Object.values(node) as unknown[]) {
      if (typeof child !== 'object' || child === null) continue;
      if (depth + 1 > limit) return limit + 1;
      deepest = Math.max(deepest, depth + 1);
      pending.push([child, depth + 1]);
    }
  }
  return deepest;
}

/** Keys class-transformer drops without a word; a request carrying them is rejected instead. */
const RESERVED_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

function rejectReservedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const present = RESERVED_KEYS.filter((key) => Object.prototype.hasOwnProperty.call(value, key));
  if (present.length > 0) {
    throw new BadRequestException(present.map((key) => `property ${key} should not exist`));
  }
  return value;
}

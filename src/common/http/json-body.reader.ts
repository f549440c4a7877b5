import { json } from 'body-parser';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import { bodyMediaTypes, isJsonContentType } from './json-content-type';

/** Largest accepted request body, in bytes (1 MiB; exactly that is accepted). */
export const MAX_BODY_BYTES = 1_048_576;

/** What `request.body` holds when no JSON value was read: `EMPTY` (400) or an unsupported media type (415). */
export class UnreadBody {
  /** A JSON content type without a body. */
  static readonly EMPTY = new UnreadBody();

  /** A body of none of `acceptedTypes`, the media types its method takes (`bodyMediaTypes`). */
  static unsupportedMediaType(acceptedTypes: readonly string[]): UnreadBody {
    return new UnreadBody(acceptedTypes);
  }

  /** @param acceptedTypes - set for an unsupported media type only. */
  private constructor(readonly acceptedTypes?: readonly string[]) {}
}

type BodyRequest = IncomingMessage & { body?: unknown };

const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

// body-parser hands on an empty JSON body as `{}`, but empty text is no JSON value (RFC 8259 §2).
const emptyJsonBodies = new WeakSet<IncomingMessage>();

// The bytes of each JSON body read, for what compares requests byte for byte (`Idempotency-Key`).
const rawJsonBodies = new WeakMap<IncomingMessage, Buffer>();

/** The bytes of `request`'s JSON body once {@link readJsonBody} read them; undefined when it read none. */
export function rawJsonBodyOf(request: IncomingMessage): Buffer | undefined {
  return rawJsonBodies.get(request);
}

/** Deepest nesting of objects and arrays a body may have (the body itself is level 1). */
export const MAX_BODY_DEPTH = 32;

const [QUOTE, BACKSLASH, OPEN_ARRAY, OPEN_OBJECT, CLOSE_ARRAY, CLOSE_OBJECT] = [...'"\\[{]}'].map((c) =>
  c.charCodeAt(0),
);

/**
 * How deep arrays and objects nest in JSON text, counted on its bytes without parsing, given up
 * past `limit` (then `limit + 1`): `JSON.parse` of a megabyte of `[` blocks the event loop for a second.
 */
export function jsonTextDepth(raw: Uint8Array, limit: number): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i += 1) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      depth += 1;
      if (depth > limit) return limit + 1;
      deepest = Math.max(deepest, depth);
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth -= 1;
  }
  return deepest;
}

/**
 * body-parser `verify` callback: keeps the bytes read and notes a JSON body of zero bytes.
 * @throws a 400 client error, before the text is parsed, for bytes that are not UTF-8 (RFC 8259 §8.1; decoding
 *   would store them as U+FFFD) and for nesting deeper than {@link MAX_BODY_DEPTH}.
 */
export function verifyJsonBody(request: IncomingMessage, _response: ServerResponse, raw: Buffer): void {
  rawJsonBodies.set(request, raw);
  if (raw.length === 0) emptyJsonBodies.add(request);
  if (!isUtf8(raw)) {
    throw Object.assign(new Error('request body must be UTF-8: it holds bytes that are not (RFC 8259 §8.1)'), {
      status: 400,
      expose: true,
    });
  }
  if (jsonTextDepth(raw, MAX_BODY_DEPTH) > MAX_BODY_DEPTH) {
    const message = `request body must not nest objects or arrays more than ${MAX_BODY_DEPTH} levels deep`;
    throw Object.assign(new Error(message), { status: 400, expose: true });
  }
}

/** Replaces a body that was not read, or was empty, by the matching {@link UnreadBody}. */
export function classifyUnreadBody(request: BodyRequest): void {
  if (request.body === undefined) {
    const accepted = bodyMediaTypes(request.method);
    const json = isJsonContentType(request.headers['content-type'], accepted);
    request.body = json ? UnreadBody.EMPTY : UnreadBody.unsupportedMediaType(accepted);
  } else if (emptyJsonBodies.has(request)) {
    request.body = UnreadBody.EMPTY;
  }
}

const parseJson = promisify<BodyRequest, ServerResponse, void>(
  json({
    limit: MAX_BODY_BYTES,
    type: (request: IncomingMessage): boolean =>
      isJsonContentType(request.headers['content-type'], bodyMediaTypes(request.method)),
    // Any JSON text parses (RFC 8259 §2): a string, number or literal is "not a JSON object", not "not valid JSON".
    strict: false,
    verify: verifyJsonBody,
  }),
);

/**
 * Reads the JSON body of a POST, PUT or PATCH, at most {@link MAX_BODY_BYTES} (`@JsonBody()`, after the guards:
 * docs/security.md); a PATCH body may also be a JSON Merge Patch, and its answer names the patch types in
 * `Accept-Patch` (RFC 5789 §3.1).
 * @returns the parsed value, or the {@link UnreadBody} that says why there is none.
 * @throws body-parser's client errors: 413 too large, 400 malformed JSON, not UTF-8, too deep or bad encoding.
 */
export async function readJsonBody(request: BodyRequest, response: ServerResponse): Promise<unknown> {
  if (!METHODS_WITH_BODY.has(request.method ?? '')) return undefined;
  if (request.method === 'PATCH') response.setHeader('Accept-Patch', bodyMediaTypes('PATCH').join(', '));
  await parseJson(request, response);
  classifyUnreadBody(request);
  return request.body;
}

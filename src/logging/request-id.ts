import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Header that carries the request id in both directions (the de-facto standard name). */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * What a caller's request id may look like to be adopted: 1–128 characters of letters, digits and
 * `.`, `_`, `:`, `-` (UUIDs, ULIDs, W3C trace ids and most proxies' ids). Anything else — longer,
 * empty, spaces, quotes, control characters — is replaced, so a caller can neither forge log
 * structure nor blow up log lines through it.
 */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * pino-http `genReqId`: the caller's `X-Request-Id` when it is acceptable, else a new random
 * UUID (RFC 9562 version 4); the id is also set on the response, so the caller can quote it.
 *
 * @returns the id logged with every line of this request.
 */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

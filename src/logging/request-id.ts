import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Header that carries the request id in both directions. */
const REQUEST_ID_HEADER = 'X-Request-Id';

// UUIDs, ULIDs, W3C trace ids and most proxies' ids; anything else is replaced.
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** pino-http `genReqId`: the caller's acceptable `X-Request-Id`, else a random UUID; also set on the response. */
export function assignRequestId(request: IncomingMessage, response: ServerResponse): string {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && ACCEPTED_REQUEST_ID.test(offered) ? offered : randomUUID();
  response.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

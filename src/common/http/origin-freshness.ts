import type { Express, Request, Response } from 'express';

// fresh (Express's own freshness check) ships no type declarations.
const fresh = require('fresh') as (requestHeaders: object, responseHeaders: object) => boolean;

/**
 * Makes Express's `req.fresh` ignore the request's `Cache-Control: no-cache`, a directive for caches
 * (RFC 9111 §5.2.1.4): the origin answers a matching `If-None-Match` with 304 (RFC 9110 §13.1.2),
 * also to the Fetch API, which sends that directive with every `If-None-Match`.
 */
export function ignoreRequestNoCacheInFreshness(app: Express): void {
  Object.defineProperty(app.request, 'fresh', {
    configurable: true,
    enumerable: true,
    get(this: Request): boolean {
      const { res } = this;
      if ((this.method !== 'GET' && this.method !== 'HEAD') || res === undefined) return false;
      const status = res.statusCode;
      if (!((status >= 200 && status < 300) || status === 304)) return false;
      const { 'cache-control': _cacheControl, ...headers } = this.headers;
      return fresh(headers, { etag: res.get('ETag'), 'last-modified': res.get('Last-Modified') });
    },
  });
}

/**
 * `body`, one resource's representation, answered with its strong `ETag` `tag` (RFC 9110 §8.8.3): a GET or HEAD whose
 * `If-None-Match` names the tag gets 304 instead (RFC 9110 §13.1.2), when Express sends it and finds `req.fresh`
 * ({@link ignoreRequestNoCacheInFreshness}), with the headers set so far (`ETag`, `Cache-Control`, `Vary`: RFC 9110
 * §15.4.5) and no body.
 */
export function withEntityTag<T>(response: Response, tag: string, body: T): T {
  response.setHeader('ETag', tag);
  return body;
}

import type { Express, Request } from 'express';

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

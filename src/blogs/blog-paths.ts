import type { NextFunction, Request, Response } from 'express';

/** Canonical path of the collection; `Location` headers point here. */
export const BLOGS_PATH = '/api/v1/blogs';

// Any letter case, because Express routes case-insensitively: as `/API/V1/BLOGS` reaches the handlers, so must `/API/BLOGS`.
const BLOG_PATH_ALIAS = /^\/(?:api|v1)\/blogs(?=[/?]|$)/i;

/** Express middleware: rewrites the aliases `/api/blogs…` and `/v1/blogs…` to {@link BLOGS_PATH} before routing. */
export function rewriteBlogPathAliases(request: Request, _response: Response, next: NextFunction): void {
  if (BLOG_PATH_ALIAS.test(request.url)) request.url = request.url.replace(BLOG_PATH_ALIAS, BLOGS_PATH);
  next();
}

/**
 * The `Link` header value (RFC 8288) of the page after a list answer: the canonical path with the
 * request's parameters, `cursor` in place of `offset` (and of an earlier cursor).
 */
export function nextPageLink(requestUrl: string, cursor: string): string {
  const query = new URLSearchParams(requestUrl.split('?')[1] ?? '');
  query.delete('offset');
  query.delete('cursor');
  query.append('cursor', cursor);
  return `<${BLOGS_PATH}?${query.toString()}>; rel="next"`;
}

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

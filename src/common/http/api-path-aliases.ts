import type { NextFunction, Request, Response } from 'express';

/**
 * Express middleware: rewrites `/api/<resource>…` and `/v1/<resource>…` to `/api/v1/<resource>…` before routing, for
 * each of `resources` (`blogs`). Any letter case, as Express routes case-insensitively.
 */
export function apiPathAliases(
  resources: readonly string[],
): (request: Request, response: Response, next: NextFunction) => void {
  const alias = new RegExp(`^/(?:api|v1)/(?=(?:${resources.join('|')})(?:[/?]|$))`, 'i');
  return (request, _response, next) => {
    if (alias.test(request.url)) request.url = request.url.replace(alias, '/api/v1/');
    next();
  };
}

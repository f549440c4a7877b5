import type { IncomingMessage } from 'node:http';

/**
 * The route template of the handler that took the request (`/api/v1/blogs/:id`), or undefined when
 * none did. Express also sets `req.route` for middleware mounted with a wildcard (`/api{/*splat}`);
 * no handler route of this service has one, so a wildcard template means no handler matched.
 */
export function matchedRouteOf(request: IncomingMessage): string | undefined {
  const { route, baseUrl } = request as IncomingMessage & { route?: { path?: unknown }; baseUrl?: unknown };
  const path = route?.path;
  if (typeof path !== 'string' || path.includes('*')) return undefined;
  return (typeof baseUrl === 'string' ? baseUrl : '') + path;
}

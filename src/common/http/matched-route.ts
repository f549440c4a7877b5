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

/**
 * The request's path as its route names it: the template of {@link matchedRouteOf} with each `:name` replaced by its
 * parameter's value (percent-encoded), so the same for every letter case and alias of the path (`/API/V1/BLOGS`,
 * `/api/blogs`); the request's own path when no handler matched.
 */
export function canonicalPathOf(
  request: IncomingMessage & { path?: string; params?: Record<string, string | string[] | undefined> },
): string {
  const template = matchedRouteOf(request);
  if (template === undefined) return request.path ?? request.url ?? '';
  return template.replace(/:(\w+)/g, (_, name: string) => {
    const value = request.params?.[name] ?? '';
    return encodeURIComponent(Array.isArray(value) ? value.join('/') : value);
  });
}

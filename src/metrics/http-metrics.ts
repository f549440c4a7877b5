import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { performance } from 'node:perf_hooks';
import type { Histogram } from 'prom-client';
import { matchedRouteOf } from '../common/http/matched-route';

/** Name of the request duration histogram (Prometheus naming: base unit seconds). */
export const HTTP_REQUEST_DURATION = 'http_request_duration_seconds';

/** Labels of {@link HTTP_REQUEST_DURATION}. */
export type HttpLabel = 'method' | 'route' | 'status_code';

/** Bucket upper bounds, in seconds. */
export const HTTP_DURATION_BUCKETS: readonly number[] = [
  0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

/** The `route` label of requests that matched no route; raw URLs never become label values. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route template of the handler that took the request (`/api/v1/blogs/:id`), or {@link UNMATCHED_ROUTE}. */
export function routeTemplateOf(request: Request): string {
  return matchedRouteOf(request) ?? UNMATCHED_ROUTE;
}

/** Express middleware observing each sent response's duration in `histogram`, by method, route template and status. */
export function createHttpMetricsMiddleware(histogram: Histogram<HttpLabel>): RequestHandler {
  return (request: Request, response: Response, next: NextFunction): void => {
    const start = performance.now();
    response.once('finish', () => {
      const seconds = (performance.now() - start) / 1000;
      histogram.observe(
        { method: request.method, route: routeTemplateOf(request), status_code: response.statusCode },
        seconds,
      );
    });
    next();
  };
}

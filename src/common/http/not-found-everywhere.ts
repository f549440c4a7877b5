import type { HttpServer } from '@nestjs/common';

/**
 * Makes `server` answer every path no route serves with Nest's 404 (the JSON error body, through the exception
 * filters): Nest 12's Express adapter mounts it only under the global prefix and at its exclusions. Call before init.
 */
export function notFoundEverywhere(server: HttpServer): void {
  const setNotFoundHandler = server.setNotFoundHandler?.bind(server);
  if (setNotFoundHandler === undefined) return;
  server.setNotFoundHandler = (...args: Parameters<typeof setNotFoundHandler>) => {
    setNotFoundHandler(...args);
    // Mounted after the prefix's own: it takes the paths outside the prefix that no route or exclusion served.
    server.use(args[0] as (request: unknown, response: unknown, next?: unknown) => unknown);
  };
}

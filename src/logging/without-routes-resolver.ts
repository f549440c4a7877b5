import type { LoggerService } from '@nestjs/common';

/**
 * `logger` without Nest's `RoutesResolver` lines, which print each controller's path with the global prefix even where
 * it is excluded (`/api/health` for routes served at `/health/*`); the `RouterExplorer` lines after them name the routes.
 */
export function withoutRoutesResolver(logger: LoggerService): LoggerService {
  return {
    log: (message: unknown, ...rest: unknown[]) => {
      if (rest.at(-1) !== 'RoutesResolver') logger.log(message, ...rest);
    },
    error: (message: unknown, ...rest: unknown[]) => void logger.error(message, ...rest),
    warn: (message: unknown, ...rest: unknown[]) => void logger.warn(message, ...rest),
    debug: (message: unknown, ...rest: unknown[]) => void logger.debug?.(message, ...rest),
    verbose: (message: unknown, ...rest: unknown[]) => void logger.verbose?.(message, ...rest),
    fatal: (message: unknown, ...rest: unknown[]) => void logger.fatal?.(message, ...rest),
  };
}

import { Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream, Logger } from 'pino';
import type { HttpLogger } from 'pino-http';
import { appConfig, AppConfigType } from '../config/app.config';
import { createHttpLogger, createRootLogger } from './http-logger';

/**
 * Optional `DestinationStream` the logs are written to instead of stdout; `null` in the
 * application. Tests override it to capture the log lines of a real app.
 */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');
/** The root pino `Logger` of the application. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');
/** The pino-http request logger (an Express middleware); `setupApp` mounts it first. */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/**
 * Structured logging with nestjs-pino: Nest's own logs and every `Logger` of the application go
 * to the root pino logger, and those written while a request is handled carry its request id.
 *
 * The request logger is pino-http, mounted by `setupApp` as the first Express middleware (so a
 * request answered before routing, e.g. a 404, is logged and gets its
 * `X-Request-Id` too); nestjs-pino runs with `useExisting` and only binds that request's logger
 * for the `Logger` calls made while handling it.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [
        { provide: LOG_DESTINATION, useValue: null },
        {
          provide: ROOT_LOGGER,
          inject: [appConfig.KEY, LOG_DESTINATION],
          useFactory: (config: AppConfigType, destination: DestinationStream | null): Logger =>
            createRootLogger({
              level: config.logLevel,
              nodeEnv: config.nodeEnv,
              destination: destination ?? undefined,
            }),
        },
        { provide: HTTP_LOGGER, inject: [ROOT_LOGGER], useFactory: createHttpLogger },
      ],
      inject: [ROOT_LOGGER],
      useFactory: (logger: Logger) => ({ pinoHttp: { logger }, useExisting: true as const }),
    }),
  ],
})
export class LoggingModule {}

export type { HttpLogger };

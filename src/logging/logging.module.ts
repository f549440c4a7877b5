import { Module } from '@nestjs/common';
import { ConfigType } from '@nestjs/config';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream, Logger } from 'pino';
import type { HttpLogger } from 'pino-http';
import { loggingConfig } from '../config/logging.config';
import { createHttpLogger, createRootLogger } from './http-logger';

/** A `DestinationStream` the logs go to instead of stdout; `null` in the application, overridden by tests. */
export const LOG_DESTINATION = Symbol('LOG_DESTINATION');
/** The root pino `Logger` of the application. */
export const ROOT_LOGGER = Symbol('ROOT_LOGGER');
/** The pino-http request logger (an Express middleware); `setupApp` mounts it first. */
export const HTTP_LOGGER = Symbol('HTTP_LOGGER');

/**
 * Structured logging (nestjs-pino): every `Logger` writes to the root pino logger, with the request
 * id while a request is handled; `setupApp` mounts the request logger as the first middleware.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      providers: [
        { provide: LOG_DESTINATION, useValue: null },
        {
          provide: ROOT_LOGGER,
          inject: [loggingConfig.KEY, LOG_DESTINATION],
          useFactory: (config: ConfigType<typeof loggingConfig>, destination: DestinationStream | null): Logger =>
            createRootLogger({ ...config, destination: destination ?? undefined }),
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

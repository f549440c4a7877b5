import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { APP_OPTIONS, setupApp } from './app.setup';
import { ConfigType } from '@nestjs/config';
import { databaseConfig } from './config/database.config';
import { ConfigValidationError } from './config/environment';
import { httpConfig } from './config/http.config';
import { DatabaseConnectionError } from './database/database-connection.error';
import { DataDirInUseError } from './database/embedded-driver';
import { enableGracefulShutdown } from './lifecycle/graceful-shutdown';

async function bootstrap(): Promise<void> {
  // Start-up logs are buffered until the application is built, so that a bad configuration ends
  // with the one line of its ConfigValidationError instead of Nest's stack trace.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    ...APP_OPTIONS,
    abortOnError: false,
    bufferLogs: true,
    autoFlushLogs: false,
  });
  app.useLogger(app.get(PinoNestLogger));
  app.flushLogs();
  setupApp(app);
  const config = app.get<ConfigType<typeof httpConfig>>(httpConfig.KEY);
  const database = app.get<ConfigType<typeof databaseConfig>>(databaseConfig.KEY);
  await app.listen(config.port);
  // SIGTERM / SIGINT: drain the requests in flight, close the pool, exit 0 (instead of
  // enableShutdownHooks(), which re-raises the signal and leaves keep-alive connections open).
  enableGracefulShutdown(app, { timeoutMs: config.shutdownTimeoutMs, logger: new Logger() });
  const { port } = app.getHttpServer().address() as AddressInfo;
  const store = database.url ? 'PostgreSQL' : `embedded PGlite in ${database.dataDir}`;
  Logger.log(`Listening on port ${port} (${store})`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  // Operator mistakes end with their one-line message; anything else is a bug and gets its stack.
  const operatorErrors = [ConfigValidationError, DataDirInUseError, DatabaseConnectionError];
  if (error instanceof Error && operatorErrors.some((kind) => error instanceof kind)) {
    process.stderr.write(`${error.message}\n`);
  } else {
    Logger.flush();
    Logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), undefined, 'Bootstrap');
  }
  process.exit(1);
});

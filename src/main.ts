import './lifecycle/require-supported-node';
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
import { httpConfig, loadHttpConfig } from './config/http.config';
import { DatabaseConnectionError } from './database/database-connection.error';
import { DataDirInUseError } from './database/embedded-driver';
import { withoutRoutesResolver } from './logging/without-routes-resolver';
import { enableGracefulShutdown } from './lifecycle/graceful-shutdown';
import { assertCanListen, formatAddress, ListenError, listenError } from './lifecycle/listening-socket';

async function bootstrap(): Promise<void> {
  // The address first: a port taken or not permitted, a host not of this machine ends start-up with one line before
  // the database is touched (and, should another process take the port meanwhile, app.listen() below does the same).
  const { host, port: configuredPort } = loadHttpConfig(process.env);
  await assertCanListen(host, configuredPort);
  // Start-up logs are buffered until the application is built, so that a bad configuration ends
  // with the one line of its ConfigValidationError instead of Nest's stack trace.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    ...APP_OPTIONS,
    abortOnError: false,
    bufferLogs: true,
    autoFlushLogs: false,
  });
  app.useLogger(withoutRoutesResolver(app.get(PinoNestLogger)));
  app.flushLogs();
  setupApp(app);
  const config = app.get<ConfigType<typeof httpConfig>>(httpConfig.KEY);
  if (config.warning !== undefined) Logger.warn(config.warning, 'Bootstrap');
  const database = app.get<ConfigType<typeof databaseConfig>>(databaseConfig.KEY);
  // Start-up hooks (the job library's among them) run here, so that their failures are not taken for the port's.
  await app.init();
  await app.listen(configuredPort, host).catch((error: NodeJS.ErrnoException) => {
    throw listenError(error, host, configuredPort);
  });
  // SIGTERM / SIGINT: drain the requests in flight, close the pool, exit 0 (instead of
  // enableShutdownHooks(), which re-raises the signal and leaves keep-alive connections open).
  enableGracefulShutdown(app, { timeoutMs: config.shutdownTimeoutMs, logger: new Logger() });
  const { port } = app.getHttpServer().address() as AddressInfo;
  const store = database.url ? 'PostgreSQL' : `embedded PGlite in ${database.dataDir}`;
  Logger.log(`Listening on http://${formatAddress(host, port)} (${store})`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  // Operator mistakes end with their one-line message; anything else is a bug and gets its stack.
  const operatorErrors = [ConfigValidationError, ListenError, DataDirInUseError, DatabaseConnectionError];
  if (error instanceof Error && operatorErrors.some((kind) => error instanceof kind)) {
    process.stderr.write(`${error.message}\n`);
  } else {
    Logger.flush();
    Logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), undefined, 'Bootstrap');
  }
  process.exit(1);
});

import './lifecycle/require-supported-node';
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadConfiguration } from './config/configuration';
import { databaseConfig } from './config/database.config';
import { ConfigValidationError, loadEnvFile, readsEnvFile } from './config/environment';
import { httpConfig } from './config/http.config';
import { DatabaseConnectionError } from './database/database-connection.error';
import { DataDirInUseError } from './database/embedded-driver';
import { assertCanListen, formatAddress, ListenError, listenError } from './lifecycle/listening-socket';

async function bootstrap(): Promise<void> {
  // The configuration (with .env, as AppConfigModule reads it) and the address first, before the application's modules
  // load (seconds on a busy host): a bad setting, a port taken or not permitted, a host not of this machine ends
  // start-up with one line at once, before the database is touched (should another process take the port meanwhile,
  // app.listen() below does the same).
  if (readsEnvFile(process.env)) loadEnvFile();
  const { host, port: configuredPort } = loadConfiguration(process.env).http;
  await assertCanListen(host, configuredPort);
  const [{ NestFactory }, { Logger: PinoNestLogger }, { AppModule }, { APP_OPTIONS, setupApp }, routes, shutdown] =
    await Promise.all([
      import('@nestjs/core'),
      import('nestjs-pino'),
      import('./app.module'),
      import('./app.setup'),
      import('./logging/without-routes-resolver'),
      import('./lifecycle/graceful-shutdown'),
    ]);
  // Start-up logs are buffered until the application is built, so that a bad configuration ends
  // with the one line of its ConfigValidationError instead of Nest's stack trace.
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    ...APP_OPTIONS,
    abortOnError: false,
    bufferLogs: true,
    autoFlushLogs: false,
  });
  app.useLogger(routes.withoutRoutesResolver(app.get(PinoNestLogger)));
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
  shutdown.enableGracefulShutdown(app, { timeoutMs: config.shutdownTimeoutMs, logger: new Logger() });
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

import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { APP_OPTIONS, setupApp } from './app.setup';
import { appConfig, AppConfigType } from './config/app.config';
import { ConfigValidationError } from './config/environment';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { ...APP_OPTIONS, abortOnError: false });
  setupApp(app);
  app.enableShutdownHooks();
  const config = app.get<AppConfigType>(appConfig.KEY);
  await app.listen(config.port);
  Logger.log(`Listening on ${await app.getUrl()} (${config.database.url ? 'PostgreSQL' : 'embedded PGlite'})`, 'Bootstrap');
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigValidationError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    Logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error), undefined, 'Bootstrap');
  }
  process.exit(1);
});

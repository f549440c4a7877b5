// The bench's textbook server (`node bench/bench.mjs --textbook`): a blog CRUD resource built the way the NestJS
// docs and their TypeORM sample build one, with nothing tuned, so that "service ÷ textbook" prices what the service
// does beyond it and how. Run: `node -r ts-node/register/transpile-only bench/textbook/main.ts`.
// Environment: PORT, DATABASE_URL, JWT_SECRET.
import { ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn'] });
  app.setGlobalPrefix('api/v1', { exclude: ['health/live'] });
  app.useGlobalPipes(new ValidationPipe({ whitelist: true }));
  await app.listen(Number(process.env.PORT ?? 3000));
}

void bootstrap();

import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from '../app.module';
import { APP_OPTIONS, setupApp } from '../app.setup';
import { createOpenApiDocument } from '../openapi/openapi';

// `npm run openapi` writes the code's OpenAPI document to openapi.json; `-- --check` exits 1 when
// the committed file differs. Preview mode instantiates no provider: no database or secret needed.
async function main(argv: readonly string[]): Promise<number> {
  const check = argv.includes('--check');
  const target = resolve(__dirname, '..', '..', 'openapi.json');
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    ...APP_OPTIONS,
    preview: true,
    logger: false,
    abortOnError: false,
  });
  setupApp(app);
  const text = `${JSON.stringify(createOpenApiDocument(app), null, 2)}\n`;
  await app.close();
  if (!check) {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${target}\n`);
    return 0;
  }
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // A missing file is drift like any other.
  }
  if (committed === text) {
    process.stdout.write('openapi.json matches the code\n');
    return 0;
  }
  process.stderr.write('openapi.json differs from the code: run `npm run openapi` and commit the result\n');
  return 1;
}

main(process.argv.slice(2)).then(
  (status) => process.exit(status),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(2);
  },
);

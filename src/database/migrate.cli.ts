import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createCliDataSource } from './cli-data-source';
import type { PostgresOptions } from './data-source-options';
import { runMigrationsExclusively } from './run-migrations';

/**
 * `npm run migration:run`: applies the pending migrations with the CLI's DataSource
 * ({@link createCliDataSource}, as `ormconfig.ts`) under the same advisory lock as a replica's start-up
 * ({@link runMigrationsExclusively}), so running it while replicas start (or twice at once) applies
 * each migration once instead of racing them. Exit status 0 when done, 1 with the error otherwise.
 */
async function main(): Promise<void> {
  const dataSource = createCliDataSource();
  await dataSource.initialize();
  try {
    await runMigrationsExclusively(dataSource, dataSource.options as PostgresOptions);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  new Logger('Migrations').error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});

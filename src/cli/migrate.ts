import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { describeFailure } from '../common/describe-failure';
import { createCliDataSource, loadCliDataSourceOptions } from '../database/cli-data-source';
import { runMigrationsExclusively } from '../database/run-migrations';

// `npm run migration:run`: the pending migrations on DATABASE_MIGRATION_URL (else DATABASE_URL), under the same
// advisory lock as a replica's start-up.
async function main(): Promise<void> {
  const dataSource = createCliDataSource(loadCliDataSourceOptions());
  await dataSource.initialize();
  try {
    await runMigrationsExclusively(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  new Logger('Migrations').error(describeFailure(error));
  process.exitCode = 1;
});

import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { describeFailure } from '../common/describe-failure';
import { createCliDataSource, loadCliDataSourceOptions } from '../database/cli-data-source';
import { runMigrationsExclusively } from '../database/run-migrations';

// `npm run migration:run`: the pending migrations under the same advisory lock as a replica's start-up.
async function main(): Promise<void> {
  const options = loadCliDataSourceOptions();
  const dataSource = createCliDataSource(options);
  await dataSource.initialize();
  try {
    await runMigrationsExclusively(dataSource, options);
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  new Logger('Migrations').error(describeFailure(error));
  process.exitCode = 1;
});

import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createCliDataSource, loadCliDataSourceOptions } from './cli-data-source';
import { runMigrationsExclusively } from './run-migrations';

/**
 * `npm run migration:run`: applies the pending migrations with the CLI's DataSource
 * ({@link createCliDataSource}, as `ormconfig.ts`) under the same advisory lock as a replica's
 * start-up ({@link runMigrationsExclusively}), so running it while replicas start (or twice at
 * once) applies each migration once instead of racing them. Exit status 0 when done, 1 with the
 * error otherwise.
 */
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

/**
 * One line for the operator. Node reports a failed connection to a host with several addresses
 * (`localhost`: ::1 and 127.0.0.1) as an `AggregateError` whose own message is empty, so the
 * messages of its inner errors are used then.
 */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message !== '') return error.message;
  const inner = error instanceof AggregateError ? (error.errors as unknown[]).map(describeFailure) : [];
  return inner.length > 0 ? inner.join('; ') : error.name;
}

if (require.main === module) {
  main().catch((error: unknown) => {
    new Logger('Migrations').error(describeFailure(error));
    process.exitCode = 1;
  });
}

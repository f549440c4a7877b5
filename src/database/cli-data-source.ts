import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions, PostgresOptions } from './data-source-options';

/**
 * The DataSource options of the command-line tools (the TypeORM CLI through `ormconfig.ts`, and
 * `npm run migration:run`): the service's options, from the same environment variables (and
 * `.env`, if present), without the service's per-request time bounds, since a migration run by
 * hand may rightly take minutes. Only the database variables are validated, so migrations need no
 * `JWT_SECRET`, also in production.
 *
 * @throws ConfigValidationError naming the variable when `DATABASE_URL`, `DATA_DIR` or `NODE_ENV`
 *   is invalid.
 */
export function loadCliDataSourceOptions(): PostgresOptions {
  try {
    process.loadEnvFile('.env');
  } catch {
    // no .env file: the environment alone configures the CLI
  }
  const entities = [join(__dirname, '..', '**', '*.entity.{ts,js}')];
  return { ...buildDataSourceOptions(loadDatabaseConfig(process.env)), entities, extra: {} };
}

/** A DataSource over {@link loadCliDataSourceOptions}. */
export function createCliDataSource(options: PostgresOptions = loadCliDataSourceOptions()): DataSource {
  return new DataSource(options);
}

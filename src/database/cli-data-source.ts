import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/environment';
import { buildDataSourceOptions } from './data-source-options';

/**
 * The DataSource of the command-line tools (the TypeORM CLI through `ormconfig.ts`, and
 * `npm run migration:run`): the service's options, from the same environment variables (and
 * `.env`, if present). Only the database variables are validated, so migrations need no
 * `JWT_SECRET`, also in production.
 *
 * @throws ConfigValidationError naming the variable when `DATABASE_URL`, `DATA_DIR` or `NODE_ENV`
 *   is invalid.
 */
export function createCliDataSource(): DataSource {
  try {
    process.loadEnvFile('.env');
  } catch {
    // no .env file: the environment alone configures the CLI
  }
  const options = buildDataSourceOptions(loadDatabaseConfig(process.env));
  // No per-request time bounds here: a migration run by hand may rightly take minutes.
  return new DataSource({ ...options, extra: {} });
}

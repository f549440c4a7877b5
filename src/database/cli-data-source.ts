import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/database.config';
import { buildDataSourceOptions, PostgresOptions } from './data-source-options';

/**
 * Options of the CLI tools (TypeORM CLI, `npm run migration:run`): the service's, without per-request time bounds.
 * @throws ConfigValidationError naming the variable when `DATABASE_URL`, `DATA_DIR` or `NODE_ENV` is invalid.
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

import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from '../config/database.config';
import { loadEnvFile } from '../config/environment';
import { buildDataSourceOptions, PostgresOptions } from './data-source-options';

/**
 * Options of the CLI tools (TypeORM CLI, `npm run migration:run`): the service's, on the migrations' direct session
 * (`DATABASE_MIGRATION_URL`, else `DATABASE_URL`), without per-request time bounds.
 * @throws ConfigValidationError naming the first invalid variable of the `database` namespace.
 */
export function loadCliDataSourceOptions(): PostgresOptions {
  loadEnvFile();
  const entities = [join(__dirname, '..', '**', '*.entity.{ts,js}')];
  const { migrationUrl, dataDir } = loadDatabaseConfig(process.env);
  return { ...buildDataSourceOptions({ url: migrationUrl, dataDir }), entities, extra: {} };
}

/** A DataSource over {@link loadCliDataSourceOptions}. */
export function createCliDataSource(options: PostgresOptions = loadCliDataSourceOptions()): DataSource {
  return new DataSource(options);
}

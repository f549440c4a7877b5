import 'reflect-metadata';
import { DataSource } from 'typeorm';
import { loadDatabaseConfig } from './src/config/environment';
import { buildDataSourceOptions } from './src/database/data-source-options';

// The DataSource of the TypeORM CLI (`npm run migration:run`, `migration:generate`, …): the same
// options as the service, from the same environment variables (and `.env`, if present).
try {
  process.loadEnvFile('.env');
} catch {
  // no .env file: the environment alone configures the CLI
}

// Only the database variables are validated: migrations need no JWT_SECRET, also in production.
const options = buildDataSourceOptions(loadDatabaseConfig(process.env));

// No per-request time bounds here: a migration run by hand may rightly take minutes.
export default new DataSource({ ...options, extra: {} });

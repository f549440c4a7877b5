import 'reflect-metadata';
import { createCliDataSource } from './src/database/cli-data-source';

// The DataSource of the TypeORM CLI (`npm run migration:show`, `migration:generate`, …): the same
// options as the service, from the same environment variables (and `.env`, if present).
export default createCliDataSource();

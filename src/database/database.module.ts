import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { appConfig, AppConfigType } from '../config/app.config';
import { buildDataSourceOptions } from './data-source-options';

/**
 * The TypeORM connection of the application: PostgreSQL when `DATABASE_URL` is set, else the
 * embedded PGlite database. Pending migrations run when the module starts.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [appConfig.KEY],
      useFactory: (config: AppConfigType) => ({
        ...buildDataSourceOptions(config.database),
        migrationsRun: true,
        // Fail start-up after ~10 s without a database, and let the orchestrator restart us.
        retryAttempts: 5,
        retryDelay: 2_000,
      }),
    }),
  ],
})
export class DatabaseModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConfigType } from '@nestjs/config';
import { databaseConfig } from '../config/database.config';
import { buildDataSourceOptions, PostgresOptions } from './data-source-options';
import { runMigrationsExclusively } from './run-migrations';

/**
 * The TypeORM connection of the application: PostgreSQL when `DATABASE_URL` is set, else the
 * embedded PGlite database. Pending migrations run when the module starts, under an advisory lock
 * so that replicas starting together run them once (see {@link runMigrationsExclusively}).
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY],
      useFactory: (config: ConfigType<typeof databaseConfig>) => ({
        ...buildDataSourceOptions(config),
        // Each feature registers its entities with TypeOrmModule.forFeature.
        autoLoadEntities: true,
        // Run by the data source factory below, under the migration lock.
        migrationsRun: false,
        // Fail start-up after ~10 s without a database, and let the orchestrator restart us.
        retryAttempts: 5,
        retryDelay: 2_000,
      }),
      // Retried as a whole by @nestjs/typeorm, like the default factory.
      dataSourceFactory: async (options) => {
        const dataSource = await new DataSource(options as PostgresOptions).initialize();
        try {
          await runMigrationsExclusively(dataSource, options as PostgresOptions);
        } catch (error) {
          // Release the pool (and, embedded, the DATA_DIR lock) before the next attempt.
          await dataSource.destroy().catch(() => undefined);
          throw error;
        }
        return dataSource;
      },
    }),
  ],
})
export class DatabaseModule {}

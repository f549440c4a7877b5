import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ConfigType } from '@nestjs/config';
import { databaseConfig } from '../config/database.config';
import { buildDataSourceOptions, PostgresOptions } from './data-source-options';
import { DatabaseConnectionError } from './database-connection.error';
import { runMigrationsExclusively } from './run-migrations';

/** The TypeORM DataSource (PostgreSQL or embedded PGlite); migrates at start-up ({@link runMigrationsExclusively}). */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY],
      useFactory: (config: ConfigType<typeof databaseConfig>) => ({
        ...buildDataSourceOptions(config),
        autoLoadEntities: true,
        // Run by the data source factory below, under the migration lock.
        migrationsRun: false,
        retryAttempts: 5,
        retryDelay: 2_000,
      }),
      dataSourceFactory: async (options) => {
        const { url } = options as PostgresOptions;
        const dataSource = await new DataSource(options as PostgresOptions).initialize().catch((error: unknown) => {
          throw url === undefined ? error : new DatabaseConnectionError(url, error);
        });
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

import { Logger, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { ConfigType } from '@nestjs/config';
import { databaseConfig } from '../config/database.config';
import { buildDataSourceOptions, buildMigrationDataSourceOptions, PostgresOptions } from './data-source-options';
import { DatabaseConnectionError, DatabaseUrlVariable } from './database-connection.error';
import { ReadReplicas } from './read-replicas';
import { runMigrationsExclusively } from './run-migrations';
import { sessionSettingsDrift } from './session-settings';
import { StatementRunner } from './statement-runner';

/** The service's DataSource options, plus what the factory below needs beyond TypeORM's. */
type ServiceDataSourceOptions = PostgresOptions & {
  /** The direct session migrations run on, when it is not the service's own DataSource. */
  readonly migrationDataSource?: PostgresOptions;
  /** The server sessions behind PgBouncer get their settings from the role, which start-up checks. */
  readonly checkSessionSettings: boolean;
};

/** An initialised DataSource; a server that cannot be reached is a one-line {@link DatabaseConnectionError}. */
async function initialize(options: PostgresOptions, variable: DatabaseUrlVariable): Promise<DataSource> {
  return new DataSource(options).initialize().catch((error: unknown) => {
    const url = options.url ?? options.replication?.master.url;
    throw url === undefined ? error : new DatabaseConnectionError(url, error, variable);
  });
}

/** Whether a server accepts a session within the connect timeout. */
async function answers(url: string, options: PostgresOptions): Promise<boolean> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: options.connectTimeoutMS });
  client.on('error', () => undefined);
  return client.connect().then(
    () => client.end().then(() => true),
    () => false,
  );
}

/** `options` with only the replicas that answer now: TypeORM fails to start on one that does not ({@link ReadReplicas} adds it later). */
async function withAnsweringReplicas(options: PostgresOptions): Promise<PostgresOptions> {
  const { replication } = options;
  if (replication === undefined) return options;
  const answering = await Promise.all(replication.slaves.map(({ url = '' }) => answers(url, options)));
  return { ...options, replication: { ...replication, slaves: replication.slaves.filter((_, i) => answering[i]) } };
}

/** Runs the migrations on `options`' own DataSource, closed afterwards. */
async function migrateOn(options: PostgresOptions): Promise<void> {
  const dataSource = await initialize(options, 'DATABASE_MIGRATION_URL');
  try {
    await runMigrationsExclusively(dataSource);
  } finally {
    await dataSource.destroy().catch(() => undefined);
  }
}

/**
 * The TypeORM DataSource (PostgreSQL, directly or through PgBouncer, or embedded PGlite); migrates at start-up
 * ({@link runMigrationsExclusively}) on the direct session `DATABASE_MIGRATION_URL` names. Exports {@link ReadReplicas} and {@link StatementRunner}.
 */
@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [databaseConfig.KEY],
      useFactory: (config: ConfigType<typeof databaseConfig>) =>
        ({
          ...buildDataSourceOptions(config),
          migrationDataSource: buildMigrationDataSourceOptions(config),
          checkSessionSettings: config.pooler === 'pgbouncer',
          autoLoadEntities: true,
          // Run by the data source factory below, under the migration lock.
          migrationsRun: false,
          retryAttempts: 5,
          retryDelay: 2_000,
        }) as ServiceDataSourceOptions,
      dataSourceFactory: async (options) => {
        const { migrationDataSource, checkSessionSettings, ...serviceOptions } = options as ServiceDataSourceOptions;
        const dataSource = await initialize(await withAnsweringReplicas(serviceOptions), 'DATABASE_URL');
        try {
          if (migrationDataSource === undefined) await runMigrationsExclusively(dataSource);
          else await migrateOn(migrationDataSource);
          const drift = checkSessionSettings ? await sessionSettingsDrift(dataSource) : [];
          if (drift.length > 0)
            new Logger('Database').warn(
              `Behind PgBouncer the server sessions have ${drift.join(', ')}: set them for the service's role ` +
                '(docs/operations.md, "PgBouncer")',
            );
        } catch (error) {
          // Release the pool (and, embedded, the DATA_DIR lock) before the next attempt.
          await dataSource.destroy().catch(() => undefined);
          throw error;
        }
        return dataSource;
      },
    }),
  ],
  providers: [ReadReplicas, StatementRunner],
  exports: [ReadReplicas, StatementRunner],
})
export class DatabaseModule {}

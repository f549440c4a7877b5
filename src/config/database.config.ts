import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsIn, IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import {
  BooleanString,
  emptyToUndefined,
  IntegerInRange,
  invalidConfiguration,
  NodeEnvVariables,
  readEnvironment,
  toList,
  VariableNames,
} from './environment';

/** What `DATABASE_URL` leads to: PostgreSQL itself, or PgBouncer in transaction pooling mode. */
const DATABASE_POOLERS = ['none', 'pgbouncer'] as const;
type DatabasePooler = (typeof DATABASE_POOLERS)[number];

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

class DatabaseVariables extends NodeEnvVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  readonly DATABASE_URL?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(POSTGRES_URL, { message: 'DATABASE_MIGRATION_URL must be a postgres:// or postgresql:// URL' })
  readonly DATABASE_MIGRATION_URL?: string;

  @Transform(toList)
  @IsOptional()
  @ArrayMaxSize(16, { message: 'DATABASE_READ_URLS must list at most 16 replicas' })
  @Matches(POSTGRES_URL, {
    each: true,
    message: 'DATABASE_READ_URLS must be postgres:// or postgresql:// URLs, comma-separated',
  })
  readonly DATABASE_READ_URLS?: string[];

  @IntegerInRange(100, 3_600_000, ' (ms)')
  readonly DATABASE_READ_MAX_LAG_MS: number = 1_000;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(DATABASE_POOLERS, { message: `DATABASE_POOLER must be one of: ${DATABASE_POOLERS.join(', ')}` })
  readonly DATABASE_POOLER?: DatabasePooler;

  @Transform(emptyToUndefined)
  @IsOptional()
  @BooleanString()
  readonly DATABASE_PREPARED_STATEMENTS?: boolean;

  @IsString()
  @IsNotEmpty({ message: 'DATA_DIR must not be empty' })
  readonly DATA_DIR: string = './data';
}

/** Variables of the `database` namespace: all the TypeORM CLI validates. */
export const DATABASE_VARIABLES: VariableNames<DatabaseVariables> = {
  NODE_ENV: true,
  DATABASE_URL: true,
  DATABASE_MIGRATION_URL: true,
  DATABASE_POOLER: true,
  DATABASE_PREPARED_STATEMENTS: true,
  DATABASE_READ_URLS: true,
  DATABASE_READ_MAX_LAG_MS: true,
  DATA_DIR: true,
};

/** Where the data lives. */
export interface DatabaseConfig {
  /** `postgres://…` of a PostgreSQL server (or of PgBouncer in front of it), or undefined for the embedded PGlite database. */
  readonly url?: string;
  /** `postgres://…` of a direct session on the same server, where migrations run under their advisory lock; `url` unless set. */
  readonly migrationUrl?: string;
  /** `pgbouncer` when `url` leads to PgBouncer in transaction pooling mode (no startup parameters, no session state). */
  readonly pooler: DatabasePooler;
  /** Whether statements go to the server as named prepared statements, parsed and planned once per connection. */
  readonly preparedStatements: boolean;
  /** `postgres://…` of streaming replicas that list and read-one use while their replay lag is within `readMaxLagMs`. */
  readonly readUrls: readonly string[];
  /** Replay lag, in ms, past which a replica serves no reads until it catches up. */
  readonly readMaxLagMs: number;
  /** Directory of the embedded database (used only when `url` is undefined). */
  readonly dataDir: string;
}

/**
 * Reads the `DATABASE_*` variables, `NODE_ENV` and `DATA_DIR` only, so the TypeORM CLI needs none of the
 * service's other variables. @throws ConfigValidationError naming the first invalid one.
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv): DatabaseConfig {
  const vars = readEnvironment(DatabaseVariables, DATABASE_VARIABLES, env);
  const pooler = vars.DATABASE_POOLER ?? 'none';
  if (vars.DATABASE_URL === undefined) {
    if (vars.DATABASE_PREPARED_STATEMENTS !== undefined)
      invalidConfiguration('DATABASE_PREPARED_STATEMENTS needs DATABASE_URL (the embedded database has no server)');
    if (pooler !== 'none')
      invalidConfiguration(`DATABASE_POOLER=${pooler} needs DATABASE_URL (the embedded database has no server)`);
    if (vars.DATABASE_MIGRATION_URL !== undefined)
      invalidConfiguration('DATABASE_MIGRATION_URL needs DATABASE_URL (the embedded database has no server)');
    if (vars.DATABASE_READ_URLS?.length)
      invalidConfiguration('DATABASE_READ_URLS needs DATABASE_URL (the embedded database has no replicas)');
  } else if (pooler === 'pgbouncer' && vars.DATABASE_MIGRATION_URL === undefined) {
    invalidConfiguration(
      'DATABASE_POOLER=pgbouncer needs DATABASE_MIGRATION_URL, a direct connection to PostgreSQL: ' +
        'the migration lock is a session lock, which transaction pooling does not keep',
    );
  }
  return {
    url: vars.DATABASE_URL,
    migrationUrl: vars.DATABASE_MIGRATION_URL ?? vars.DATABASE_URL,
    pooler,
    // PgBouncer before 1.21, or without max_prepared_statements, loses them between transactions.
    preparedStatements: vars.DATABASE_URL !== undefined && (vars.DATABASE_PREPARED_STATEMENTS ?? pooler === 'none'),
    readUrls: vars.DATABASE_READ_URLS ?? [],
    readMaxLagMs: vars.DATABASE_READ_MAX_LAG_MS,
    dataDir: vars.DATA_DIR,
  };
}

/** The `database` namespace: `@Inject(databaseConfig.KEY) config: ConfigType<typeof databaseConfig>`. */
export const databaseConfig = registerAs('database', () => loadDatabaseConfig(process.env));

import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { IsNotEmpty, IsOptional, IsString, Matches } from 'class-validator';
import { emptyToUndefined, NodeEnvVariables, readEnvironment, VariableNames } from './environment';

class DatabaseVariables extends NodeEnvVariables {
  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgres:// or postgresql:// URL' })
  readonly DATABASE_URL?: string;

  @IsString()
  @IsNotEmpty({ message: 'DATA_DIR must not be empty' })
  readonly DATA_DIR: string = './data';
}

/** Variables of the `database` namespace: all the TypeORM CLI validates. */
export const DATABASE_VARIABLES: VariableNames<DatabaseVariables> = {
  NODE_ENV: true,
  DATABASE_URL: true,
  DATA_DIR: true,
};

/** Where the data lives. */
export interface DatabaseConfig {
  /** `postgres://…` of a PostgreSQL server, or undefined for the embedded PGlite database. */
  readonly url?: string;
  /** Directory of the embedded database (used only when `url` is undefined). */
  readonly dataDir: string;
}

/**
 * Reads `NODE_ENV`, `DATABASE_URL` and `DATA_DIR` only, so the TypeORM CLI needs none of the
 * service's other variables. @throws ConfigValidationError naming the first invalid one.
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv): DatabaseConfig {
  const vars = readEnvironment(DatabaseVariables, DATABASE_VARIABLES, env);
  return { url: vars.DATABASE_URL, dataDir: vars.DATA_DIR };
}

/** The `database` namespace: `@Inject(databaseConfig.KEY) config: ConfigType<typeof databaseConfig>`. */
export const databaseConfig = registerAs('database', () => loadDatabaseConfig(process.env));

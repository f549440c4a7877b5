import { randomBytes } from 'node:crypto';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  validateSync,
  ValidationError,
  ValidationOptions,
} from 'class-validator';
import { parseCanonicalInteger } from '../common/canonical-integer';

/** Runtime modes the service knows; `production` turns on the strict checks. */
export const NODE_ENVS = ['development', 'production', 'test'] as const;
export type NodeEnv = (typeof NODE_ENVS)[number];

/** pino's levels plus `silent` (logs nothing), as `LOG_LEVEL` accepts them. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Minimum HS256 key length in bytes (RFC 7518 §3.2: a key at least as long as the hash output). */
export const MIN_JWT_SECRET_BYTES = 32;

const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/**
 * class-validator group of the variables the database connection needs. {@link loadDatabaseConfig}
 * validates only the rules of this group, so the TypeORM CLI does not demand variables it never
 * uses (`JWT_SECRET` in production); {@link loadAppConfig} validates every rule, grouped or not.
 * Every rule of `NODE_ENV`, `DATABASE_URL` and `DATA_DIR` (`@IsOptional` included) must carry it.
 */
const DATABASE_GROUP = 'database';
const inDatabaseGroup: ValidationOptions = { groups: [DATABASE_GROUP] };

/**
 * The environment variables the service reads, with their validation rules. This class is the one
 * schema of the configuration: the README's configuration table and `.env.example` list exactly
 * these variables.
 */
export class EnvironmentVariables {
  @IsIn(NODE_ENVS, inDatabaseGroup)
  readonly NODE_ENV: NodeEnv = 'development';

  @Transform(parseCanonicalInteger)
  @IsInt({ message: 'PORT must be an integer between 0 and 65535' })
  @Min(0, { message: 'PORT must be an integer between 0 and 65535' })
  @Max(65535, { message: 'PORT must be an integer between 0 and 65535' })
  readonly PORT: number = 3000;

  @Transform(emptyToUndefined)
  @IsOptional(inDatabaseGroup)
  @Matches(/^postgres(ql)?:\/\/\S+$/, {
    ...inDatabaseGroup,
    message: 'DATABASE_URL must be a postgres:// or postgresql:// URL',
  })
  readonly DATABASE_URL?: string;

  @IsString(inDatabaseGroup)
  @IsNotEmpty({ ...inDatabaseGroup, message: 'DATA_DIR must not be empty' })
  readonly DATA_DIR: string = './data';

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_SECRET?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_ISSUER?: string;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsString()
  readonly JWT_AUDIENCE?: string;

  @Transform(toBoolean)
  @IsBoolean({ message: 'READS_REQUIRE_AUTH must be "true" or "false"' })
  readonly READS_REQUIRE_AUTH: boolean = false;

  @Transform(emptyToUndefined)
  @IsOptional()
  @IsIn(LOG_LEVELS, { message: `LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}` })
  readonly LOG_LEVEL?: LogLevel;
}

/** Where the data lives: what `buildDataSourceOptions` needs, from `DATABASE_URL` and `DATA_DIR`. */
export interface DatabaseConfig {
  /** `postgres://…` of an external server, or undefined for the embedded PGlite database. */
  readonly url?: string;
  /** Directory of the embedded database (used only when `url` is undefined). */
  readonly dataDir: string;
}

/** The validated, typed configuration every provider reads (through `appConfig`). */
export interface AppConfig {
  readonly nodeEnv: NodeEnv;
  readonly port: number;
  readonly database: DatabaseConfig;
  readonly jwt: {
    readonly secret: string;
    /** True when no `JWT_SECRET` was given and a random one was made for this process. */
    readonly secretGenerated: boolean;
    readonly issuer?: string;
    readonly audience?: string;
  };
  readonly readsRequireAuth: boolean;
  /** Lowest level written; `LOG_LEVEL`, by default `info`, and `silent` when `NODE_ENV=test`. */
  readonly logLevel: LogLevel;
}

/** A configuration value was missing or invalid; `message` is one line naming the variable. */
export class ConfigValidationError extends Error {
  override readonly name = 'ConfigValidationError';
}

const firstMessage = (error: ValidationError): string => {
  const messages = Object.values(error.constraints ?? {});
  return messages[0] ?? `${error.property} is invalid`;
};

/**
 * Validates the environment and builds the typed configuration.
 *
 * @param env - usually `process.env`; unknown variables are ignored.
 * @returns the configuration; in development and test a missing `JWT_SECRET` is replaced by 32
 *   random bytes (base64url) and `jwt.secretGenerated` is true.
 * @throws ConfigValidationError naming the first invalid variable; also when `NODE_ENV=production`
 *   and `JWT_SECRET` is missing, and whenever a given `JWT_SECRET` is shorter than 32 bytes.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv): AppConfig {
  const vars = validateEnvironment(env);
  if (vars.JWT_SECRET === undefined && vars.NODE_ENV === 'production') {
    throw new ConfigValidationError('Invalid configuration: JWT_SECRET is required when NODE_ENV=production');
  }
  if (vars.JWT_SECRET !== undefined && Buffer.byteLength(vars.JWT_SECRET, 'utf8') < MIN_JWT_SECRET_BYTES) {
    throw new ConfigValidationError(
      `Invalid configuration: JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes long`,
    );
  }
  return {
    nodeEnv: vars.NODE_ENV,
    port: vars.PORT,
    database: { url: vars.DATABASE_URL, dataDir: vars.DATA_DIR },
    jwt: {
      secret: vars.JWT_SECRET ?? randomBytes(MIN_JWT_SECRET_BYTES).toString('base64url'),
      secretGenerated: vars.JWT_SECRET === undefined,
      issuer: vars.JWT_ISSUER,
      audience: vars.JWT_AUDIENCE,
    },
    readsRequireAuth: vars.READS_REQUIRE_AUTH,
    // Tests read responses, not logs: a test that checks the logs sets LOG_LEVEL itself.
    logLevel: vars.LOG_LEVEL ?? (vars.NODE_ENV === 'test' ? 'silent' : 'info'),
  };
}

/**
 * Validates only what the database connection needs — `NODE_ENV`, `DATABASE_URL` and `DATA_DIR` —
 * by the same rules as {@link loadAppConfig}. For the TypeORM CLI (`ormconfig.ts`): running
 * migrations in production needs no `JWT_SECRET`, and a bad `PORT` does not stop them either.
 *
 * @param env - usually `process.env`; unknown variables and the service's other variables are
 *   ignored.
 * @returns the `database` section of the configuration (`DATA_DIR` defaults to `./data`).
 * @throws ConfigValidationError naming the first invalid database variable (one line).
 */
export function loadDatabaseConfig(env: NodeJS.ProcessEnv): DatabaseConfig {
  const vars = validateEnvironment(env, DATABASE_GROUP);
  return { url: vars.DATABASE_URL, dataDir: vars.DATA_DIR };
}

/**
 * Converts and validates the known variables of `env`: every rule of the schema, or with `group`
 * only the rules of that group (the other properties are converted but not checked).
 *
 * @throws ConfigValidationError naming the first invalid variable.
 */
function validateEnvironment(env: NodeJS.ProcessEnv, group?: string): EnvironmentVariables {
  const vars = plainToInstance(EnvironmentVariables, pickKnown(env));
  const errors = validateSync(vars, {
    forbidUnknownValues: true,
    groups: group === undefined ? undefined : [group],
  });
  if (errors.length > 0) {
    throw new ConfigValidationError(`Invalid configuration: ${firstMessage(errors[0])}`);
  }
  return vars;
}

const KNOWN_VARIABLES: readonly (keyof EnvironmentVariables)[] = [
  'NODE_ENV',
  'PORT',
  'DATABASE_URL',
  'DATA_DIR',
  'JWT_SECRET',
  'JWT_ISSUER',
  'JWT_AUDIENCE',
  'READS_REQUIRE_AUTH',
  'LOG_LEVEL',
];

function pickKnown(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of KNOWN_VARIABLES) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

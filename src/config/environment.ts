import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
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

/**
 * JWS algorithms `JWT_ALGORITHMS` may list (RFC 7518 §3.1): HMAC ones verify with `JWT_SECRET`,
 * the others with the identity provider's public keys from `JWT_JWKS_URI`.
 */
export const JWT_ALGORITHMS = [
  'HS256',
  'HS384',
  'HS512',
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;
export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number];

/** Whether `algorithm` is an HMAC one (a shared secret), as opposed to a public-key one. */
export const isHmacAlgorithm = (algorithm: string): boolean => algorithm.startsWith('HS');
/** Default of `SHUTDOWN_TIMEOUT_MS`: how long in-flight requests may run after SIGTERM, in ms. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;

/** Largest `SHUTDOWN_TIMEOUT_MS` accepted (10 minutes). */
export const MAX_SHUTDOWN_TIMEOUT_MS = 600_000;

/** Default of `JWT_JWKS_COOLDOWN_MS`: the shortest pause between two fetches of the JWK Set, in ms. */
export const DEFAULT_JWKS_COOLDOWN_MS = 10_000;

const JWKS_COOLDOWN_MESSAGE = 'JWT_JWKS_COOLDOWN_MS must be an integer number of milliseconds between 100 and 600000';

const SHUTDOWN_TIMEOUT_MESSAGE = `SHUTDOWN_TIMEOUT_MS must be an integer number of milliseconds between 0 and ${MAX_SHUTDOWN_TIMEOUT_MS}`;

/** Minimum HS256 key length in bytes (RFC 7518 §3.2: a key at least as long as the hash output). */
export const MIN_JWT_SECRET_BYTES = 32;

const toBoolean = ({ value }: { value: unknown }): unknown =>
  value === 'true' ? true : value === 'false' ? false : value;

const emptyToUndefined = ({ value }: { value: unknown }): unknown => (value === '' ? undefined : value);

/** Splits a comma-separated list, trimming each item and dropping empty ones. */
const toList = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : value;

/** Largest rate-limit window, in seconds (one day). */
export const MAX_RATE_LIMIT_WINDOW_SECONDS = 86_400;
/** Largest request budget per window (beyond it, turn limits off with RATE_LIMIT_ENABLED=false). */
export const MAX_RATE_LIMIT = 1_000_000;

/**
 * Express `trust proxy` values accepted from `TRUST_PROXY`: `false` (the client address is the
 * TCP peer; `X-Forwarded-For` is ignored), `true` (the left-most `X-Forwarded-For` address is
 * believed), a number of proxy hops, or a comma-separated list of addresses, CIDR subnets and the
 * names `loopback`, `linklocal`, `uniquelocal` of the proxies to trust.
 */
export type TrustProxy = boolean | number | readonly string[];

const TRUSTED_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Whether `item` is an address, a CIDR subnet or one of Express's proxy names. */
function isTrustedProxyItem(item: string): boolean {
  if (TRUSTED_PROXY_NAMES.has(item)) return true;
  const [address, bits, ...rest] = item.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  if (!/^(0|[1-9][0-9]?|1[01][0-9]|12[0-8])$/.test(bits)) return false;
  return Number(bits) <= (family === 4 ? 32 : 128);
}

/** `TRUST_PROXY` → the Express setting, or undefined when the value is not one of the forms. */
export function parseTrustProxy(value: string): TrustProxy | undefined {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^(0|[1-9][0-9]{0,1})$/.test(value)) return Number(value);
  const items = value.split(',').map((item) => item.trim());
  return items.length > 0 && items.every(isTrustedProxyItem) ? items : undefined;
}

/** A browser origin as the `Origin` header carries it: scheme, host and optional port, no path. */
const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

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
  @Matches(/^https?:\/\/\S+$/, { message: 'JWT_JWKS_URI must be an http:// or https:// URL' })
  readonly JWT_JWKS_URI?: string;

  @Transform(parseCanonicalInteger)
  @IsInt({ message: JWKS_COOLDOWN_MESSAGE })
  @Min(100, { message: JWKS_COOLDOWN_MESSAGE })
  @Max(600_000, { message: JWKS_COOLDOWN_MESSAGE })
  readonly JWT_JWKS_COOLDOWN_MS: number = DEFAULT_JWKS_COOLDOWN_MS;

  @Transform(({ value }: { value: unknown }) => (value === '' ? undefined : toList({ value })))
  @IsOptional()
  @IsIn(JWT_ALGORITHMS, {
    each: true,
    message: `JWT_ALGORITHMS must be a comma-separated list of ${JWT_ALGORITHMS.join(', ')}`,
  })
  readonly JWT_ALGORITHMS?: readonly JwtAlgorithm[];

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

  @Transform(toBoolean)
  @IsBoolean({ message: 'RATE_LIMIT_ENABLED must be "true" or "false"' })
  readonly RATE_LIMIT_ENABLED: boolean = true;

  @Transform(parseCanonicalInteger)
  @IsInt({ message: `RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and ${MAX_RATE_LIMIT_WINDOW_SECONDS}` })
  @Min(1, { message: `RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and ${MAX_RATE_LIMIT_WINDOW_SECONDS}` })
  @Max(MAX_RATE_LIMIT_WINDOW_SECONDS, {
    message: `RATE_LIMIT_WINDOW_SECONDS must be an integer between 1 and ${MAX_RATE_LIMIT_WINDOW_SECONDS}`,
  })
  readonly RATE_LIMIT_WINDOW_SECONDS: number = 60;

  @Transform(parseCanonicalInteger)
  @IsInt({ message: `RATE_LIMIT_READS must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  @Min(1, { message: `RATE_LIMIT_READS must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  @Max(MAX_RATE_LIMIT, { message: `RATE_LIMIT_READS must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  readonly RATE_LIMIT_READS: number = 6_000;

  @Transform(parseCanonicalInteger)
  @IsInt({ message: `RATE_LIMIT_WRITES must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  @Min(1, { message: `RATE_LIMIT_WRITES must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  @Max(MAX_RATE_LIMIT, { message: `RATE_LIMIT_WRITES must be an integer between 1 and ${MAX_RATE_LIMIT}` })
  readonly RATE_LIMIT_WRITES: number = 600;

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// or rediss:// URL' })
  readonly REDIS_URL?: string;

  @IsString()
  @Matches(/^[A-Za-z0-9:._-]{1,64}$/, {
    message: 'RATE_LIMIT_REDIS_PREFIX must be 1–64 characters of letters, digits and : . _ -',
  })
  readonly RATE_LIMIT_REDIS_PREFIX: string = 'blog-service:rate-limit:';

  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (parseTrustProxy(value.trim()) ?? null) : value,
  )
  @IsDefined({
    message:
      'TRUST_PROXY must be true, false, a number of hops, or a comma-separated list of addresses, CIDR subnets, loopback, linklocal, uniquelocal',
  })
  readonly TRUST_PROXY: TrustProxy = false;

  @Transform(toList)
  @IsString({ each: true })
  @Matches(ORIGIN, {
    each: true,
    message: 'CORS_ORIGINS must be a comma-separated list of origins such as https://app.example',
  })
  readonly CORS_ORIGINS: readonly string[] = [];
  @Transform(parseCanonicalInteger)
  @IsInt({ message: SHUTDOWN_TIMEOUT_MESSAGE })
  @Min(0, { message: SHUTDOWN_TIMEOUT_MESSAGE })
  @Max(MAX_SHUTDOWN_TIMEOUT_MS, { message: SHUTDOWN_TIMEOUT_MESSAGE })
  readonly SHUTDOWN_TIMEOUT_MS: number = DEFAULT_SHUTDOWN_TIMEOUT_MS;
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
  readonly jwt: JwtConfig;
  readonly readsRequireAuth: boolean;
  /** Lowest level written; `LOG_LEVEL`, by default `info`, and `silent` when `NODE_ENV=test`. */
  readonly logLevel: LogLevel;
  readonly rateLimit: RateLimitConfig;
  /** Express `trust proxy`: whose `X-Forwarded-For` is believed for the client address. */
  readonly trustProxy: TrustProxy;
  /** Origins allowed to call the API from a browser (CORS); empty: none. */
  readonly corsOrigins: readonly string[];
  /** After SIGTERM / SIGINT, how long in-flight requests may still run before they are cut off, in ms. */
  readonly shutdownTimeoutMs: number;
}

/** How bearer tokens are verified. */
export interface JwtConfig {
  /** HMAC key (`JWT_SECRET`); undefined when only the identity provider's keys are used. */
  readonly secret?: string;
  /** True when no `JWT_SECRET` was given and a random one was made for this process. */
  readonly secretGenerated: boolean;
  readonly issuer?: string;
  readonly audience?: string;
  /** Where the identity provider publishes its public keys (a JWK Set, RFC 7517 §5). */
  readonly jwksUri?: string;
  /** Shortest pause between two fetches of the JWK Set, in milliseconds. */
  readonly jwksCooldownMs: number;
  /** The only algorithms accepted (RFC 8725 §3.1); never empty. */
  readonly algorithms: readonly JwtAlgorithm[];
}

/** Abuse limits: reads per client address, writes per token subject, each per window. */
export interface RateLimitConfig {
  readonly enabled: boolean;
  /** Window length, in seconds. */
  readonly windowSeconds: number;
  /** Reads (GET, HEAD) one client address may make per window. */
  readonly reads: number;
  /** Writes (POST, PUT, …) one token `sub` may make per window. */
  readonly writes: number;
  /** Counters live here when set (shared by every replica), else in the process's memory. */
  readonly redisUrl?: string;
  /** Prefix of every Redis key of the counters. */
  readonly redisPrefix: string;
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
 * @returns the configuration; in development and test, when neither `JWT_SECRET` nor
 *   `JWT_JWKS_URI` is set, the secret is 32 random bytes (base64url) and `jwt.secretGenerated` is
 *   true.
 * @throws ConfigValidationError naming the first invalid variable; also when `NODE_ENV=production`
 *   and neither `JWT_SECRET` nor `JWT_JWKS_URI` is set, whenever a given `JWT_SECRET` is shorter
 *   than 32 bytes, and when `JWT_ALGORITHMS` lists an algorithm whose key is not configured.
 */
export function loadAppConfig(env: NodeJS.ProcessEnv): AppConfig {
  const vars = validateEnvironment(env);
  return {
    nodeEnv: vars.NODE_ENV,
    port: vars.PORT,
    database: { url: vars.DATABASE_URL, dataDir: vars.DATA_DIR },
    jwt: jwtConfig(vars),
    readsRequireAuth: vars.READS_REQUIRE_AUTH,
    // Tests read responses, not logs: a test that checks the logs sets LOG_LEVEL itself.
    logLevel: vars.LOG_LEVEL ?? (vars.NODE_ENV === 'test' ? 'silent' : 'info'),
    rateLimit: {
      enabled: vars.RATE_LIMIT_ENABLED,
      windowSeconds: vars.RATE_LIMIT_WINDOW_SECONDS,
      reads: vars.RATE_LIMIT_READS,
      writes: vars.RATE_LIMIT_WRITES,
      redisUrl: vars.REDIS_URL,
      redisPrefix: vars.RATE_LIMIT_REDIS_PREFIX,
    },
    trustProxy: vars.TRUST_PROXY,
    corsOrigins: vars.CORS_ORIGINS,
    shutdownTimeoutMs: vars.SHUTDOWN_TIMEOUT_MS,
  };
}

/**
 * The token settings. `JWT_SECRET` and `JWT_JWKS_URI` coexist: with a secret, HS256 tokens are
 * accepted; with a JWKS URI, RS256 and ES256 tokens of the identity provider; with both, either
 * kind (unless `JWT_ALGORITHMS` narrows it). In production one of the two is required; in
 * development and test, without either, a random secret is made (and a token logged).
 */
function jwtConfig(vars: EnvironmentVariables): JwtConfig {
  const jwksUri = vars.JWT_JWKS_URI;
  if (vars.JWT_SECRET === undefined && jwksUri === undefined && vars.NODE_ENV === 'production') {
    throw new ConfigValidationError('Invalid configuration: JWT_SECRET is required when NODE_ENV=production');
  }
  if (vars.JWT_SECRET !== undefined && Buffer.byteLength(vars.JWT_SECRET, 'utf8') < MIN_JWT_SECRET_BYTES) {
    throw new ConfigValidationError(
      `Invalid configuration: JWT_SECRET must be at least ${MIN_JWT_SECRET_BYTES} bytes long`,
    );
  }
  if (jwksUri?.startsWith('http://') && vars.NODE_ENV === 'production') {
    throw new ConfigValidationError(
      'Invalid configuration: JWT_JWKS_URI must be an https:// URL when NODE_ENV=production',
    );
  }
  const secretGenerated = vars.JWT_SECRET === undefined && jwksUri === undefined;
  const secret = secretGenerated ? randomBytes(MIN_JWT_SECRET_BYTES).toString('base64url') : vars.JWT_SECRET;
  const algorithms: readonly JwtAlgorithm[] = vars.JWT_ALGORITHMS?.length
    ? [...new Set(vars.JWT_ALGORITHMS)]
    : [
        ...(secret !== undefined ? (['HS256'] as const) : []),
        ...(jwksUri !== undefined ? (['RS256', 'ES256'] as const) : []),
      ];
  for (const algorithm of algorithms) {
    if (isHmacAlgorithm(algorithm) && secret === undefined) {
      throw new ConfigValidationError(
        `Invalid configuration: JWT_ALGORITHMS lists ${algorithm}, which needs JWT_SECRET`,
      );
    }
    if (!isHmacAlgorithm(algorithm) && jwksUri === undefined) {
      throw new ConfigValidationError(
        `Invalid configuration: JWT_ALGORITHMS lists ${algorithm}, which needs JWT_JWKS_URI`,
      );
    }
  }
  return {
    secret,
    secretGenerated,
    issuer: vars.JWT_ISSUER,
    audience: vars.JWT_AUDIENCE,
    jwksUri,
    jwksCooldownMs: vars.JWT_JWKS_COOLDOWN_MS,
    algorithms,
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

/**
 * The variables read from the environment: a key per property of {@link EnvironmentVariables}, so
 * the compiler rejects a schema property that would never be read (or a name that is not one).
 */
const KNOWN_VARIABLES: Readonly<Record<keyof EnvironmentVariables, true>> = {
  NODE_ENV: true,
  PORT: true,
  DATABASE_URL: true,
  DATA_DIR: true,
  JWT_SECRET: true,
  JWT_JWKS_URI: true,
  JWT_JWKS_COOLDOWN_MS: true,
  JWT_ALGORITHMS: true,
  JWT_ISSUER: true,
  JWT_AUDIENCE: true,
  READS_REQUIRE_AUTH: true,
  LOG_LEVEL: true,
  RATE_LIMIT_ENABLED: true,
  RATE_LIMIT_WINDOW_SECONDS: true,
  RATE_LIMIT_READS: true,
  RATE_LIMIT_WRITES: true,
  REDIS_URL: true,
  RATE_LIMIT_REDIS_PREFIX: true,
  TRUST_PROXY: true,
  CORS_ORIGINS: true,
  SHUTDOWN_TIMEOUT_MS: true,
};

function pickKnown(env: NodeJS.ProcessEnv): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(KNOWN_VARIABLES)) {
    const value = env[name];
    if (value !== undefined) picked[name] = value;
  }
  return picked;
}

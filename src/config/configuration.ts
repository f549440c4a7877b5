import { CACHE_VARIABLES, CacheConfig, cacheConfig, loadCacheConfig } from './cache.config';
import { AUTH_VARIABLES, AuthConfig, authConfig, loadAuthConfig } from './auth.config';
import { CURSOR_VARIABLES, CursorConfig, cursorConfig, loadCursorConfig } from './cursor.config';
import { DATABASE_VARIABLES, DatabaseConfig, databaseConfig, loadDatabaseConfig } from './database.config';
import { FEEDS_VARIABLES, FeedsConfig, feedsConfig, loadFeedsConfig } from './feeds.config';
import { HTTP_VARIABLES, HttpConfig, httpConfig, loadHttpConfig } from './http.config';
import { JOBS_VARIABLES, JobsConfig, jobsConfig, loadJobsConfig } from './jobs.config';
import { loadLoggingConfig, LOGGING_VARIABLES, LoggingConfig, loggingConfig } from './logging.config';
import { loadRateLimitConfig, RATE_LIMIT_VARIABLES, RateLimitConfig, rateLimitConfig } from './rate-limit.config';
import { loadRevisionsConfig, REVISIONS_VARIABLES, RevisionsConfig, revisionsConfig } from './revisions.config';

/** Every configuration namespace, in the order start-up validates them. */
export const CONFIG_NAMESPACES = [
  databaseConfig,
  httpConfig,
  authConfig,
  cursorConfig,
  loggingConfig,
  rateLimitConfig,
  jobsConfig,
  cacheConfig,
  revisionsConfig,
  feedsConfig,
];

/** Every environment variable the service reads, sorted. */
export const ENVIRONMENT_VARIABLES: readonly string[] = [
  ...new Set(
    [
      DATABASE_VARIABLES,
      HTTP_VARIABLES,
      AUTH_VARIABLES,
      CURSOR_VARIABLES,
      LOGGING_VARIABLES,
      RATE_LIMIT_VARIABLES,
      JOBS_VARIABLES,
      CACHE_VARIABLES,
      REVISIONS_VARIABLES,
      FEEDS_VARIABLES,
    ].flatMap((names) => Object.keys(names)),
  ),
].sort();

/** The configuration of every namespace. */
interface Configuration {
  readonly database: DatabaseConfig;
  readonly http: HttpConfig;
  readonly auth: AuthConfig;
  readonly cursor: CursorConfig;
  readonly logging: LoggingConfig;
  readonly rateLimit: RateLimitConfig;
  readonly jobs: JobsConfig;
  readonly cache: CacheConfig;
  readonly revisions: RevisionsConfig;
  readonly feeds: FeedsConfig;
}

/**
 * Every namespace, validated from `env` as at start-up (for command-line tools).
 * @throws ConfigValidationError naming the first invalid variable.
 */
export function loadConfiguration(env: NodeJS.ProcessEnv): Configuration {
  return {
    database: loadDatabaseConfig(env),
    http: loadHttpConfig(env),
    auth: loadAuthConfig(env),
    cursor: loadCursorConfig(env),
    logging: loadLoggingConfig(env),
    rateLimit: loadRateLimitConfig(env),
    jobs: loadJobsConfig(env),
    cache: loadCacheConfig(env),
    revisions: loadRevisionsConfig(env),
    feeds: loadFeedsConfig(env),
  };
}

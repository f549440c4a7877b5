import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsOptional, Matches } from 'class-validator';
import {
  emptyToUndefined,
  IntegerInRange,
  invalidConfiguration,
  NodeEnvVariables,
  readEnvironment,
  toList,
  VariableNames,
} from './environment';

/** One year in seconds: the longest `max-age` a cache is asked to honour (RFC 9111 §5.2.2.1 advises no more). */
const ONE_YEAR_SECONDS = 31_536_000;

/** An absolute http(s) URL without credentials, query or fragment. */
const PURGE_URL = /^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/i;

/** A bearer token of 32 to 256 characters of RFC 6750's `b64token` alphabet. */
const PURGE_TOKEN = /^[A-Za-z0-9._~+/=-]{32,256}$/;

/** Hosts of purge URLs that reach this host only: the shipped VCL lets them purge without the token. */
const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

class CacheVariables extends NodeEnvVariables {
  @IntegerInRange(0, ONE_YEAR_SECONDS, ' number of seconds')
  readonly CACHE_MAX_AGE: number = 0;

  @IntegerInRange(0, ONE_YEAR_SECONDS, ' number of seconds')
  readonly CACHE_SHARED_MAX_AGE: number = 86_400;

  @Transform(toList)
  @ArrayMaxSize(16, { message: 'CACHE_PURGE_URLS must list at most 16 caches' })
  @Matches(PURGE_URL, {
    each: true,
    message: 'CACHE_PURGE_URLS must be http:// or https:// base URLs without credentials, comma-separated',
  })
  readonly CACHE_PURGE_URLS: string[] = [];

  @Transform(emptyToUndefined)
  @IsOptional()
  @Matches(PURGE_TOKEN, {
    message: 'CACHE_PURGE_TOKEN must be 32 to 256 characters of A-Z a-z 0-9 . _ ~ + / = - (openssl rand -hex 32)',
  })
  readonly CACHE_PURGE_TOKEN?: string;
}

/** Variables of the `cache` namespace. */
export const CACHE_VARIABLES: VariableNames<CacheVariables> = {
  CACHE_MAX_AGE: true,
  CACHE_SHARED_MAX_AGE: true,
  CACHE_PURGE_URLS: true,
  CACHE_PURGE_TOKEN: true,
  NODE_ENV: true,
};

/** Shared caches in front of the service (docs/operations.md, "Behind a cache or CDN"). */
export interface CacheConfig {
  /** Seconds a browser may keep a public answer (`max-age`). */
  readonly maxAge: number;
  /** Seconds a shared cache may keep a public answer (`s-maxage`); 0: public answers say `no-cache`. */
  readonly sharedMaxAge: number;
  /** Base URLs of the caches purged after each event, as the WHATWG URL parser writes them (`http://varnish/`), each once. */
  readonly purgeUrls: readonly string[];
  /** Sent as `Authorization: Bearer <token>` with every purge; undefined: purges carry no credentials. */
  readonly purgeToken?: string;
}

function canonicalUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return invalidConfiguration(`CACHE_PURGE_URLS lists ${url}, which is not a URL`);
  }
}

/**
 * @throws ConfigValidationError naming the first invalid `cache` variable; also when production purges a cache on
 *   another host without `CACHE_PURGE_TOKEN` (the shipped VCL refuses those purges).
 */
export function loadCacheConfig(env: NodeJS.ProcessEnv): CacheConfig {
  const vars = readEnvironment(CacheVariables, CACHE_VARIABLES, env);
  const purgeUrls = [...new Set(vars.CACHE_PURGE_URLS.map(canonicalUrl))];
  const remote = purgeUrls.find((url) => !LOOPBACK_HOSTS.test(new URL(url).hostname));
  if (vars.NODE_ENV === 'production' && vars.CACHE_PURGE_TOKEN === undefined && remote !== undefined) {
    invalidConfiguration(
      `CACHE_PURGE_TOKEN is required when NODE_ENV=production and CACHE_PURGE_URLS names another host (${remote})`,
    );
  }
  return {
    maxAge: vars.CACHE_MAX_AGE,
    sharedMaxAge: vars.CACHE_SHARED_MAX_AGE,
    purgeUrls,
    ...(vars.CACHE_PURGE_TOKEN === undefined ? {} : { purgeToken: vars.CACHE_PURGE_TOKEN }),
  };
}

/** The `cache` namespace: `@Inject(cacheConfig.KEY) config: ConfigType<typeof cacheConfig>`. */
export const cacheConfig = registerAs('cache', () => loadCacheConfig(process.env));

import { registerAs } from '@nestjs/config';
import { Transform } from 'class-transformer';
import { ArrayMaxSize, Matches } from 'class-validator';
import { IntegerInRange, invalidConfiguration, readEnvironment, toList, VariableNames } from './environment';

/** One year in seconds: the longest `max-age` a cache is asked to honour (RFC 9111 §5.2.2.1 advises no more). */
const ONE_YEAR_SECONDS = 31_536_000;

/** An absolute http(s) URL without credentials, query or fragment. */
const PURGE_URL = /^https?:\/\/[^/?#@\s]+(\/[^?#\s]*)?$/i;

class CacheVariables {
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
}

/** Variables of the `cache` namespace. */
export const CACHE_VARIABLES: VariableNames<CacheVariables> = {
  CACHE_MAX_AGE: true,
  CACHE_SHARED_MAX_AGE: true,
  CACHE_PURGE_URLS: true,
};

/** Shared caches in front of the service (docs/operations.md, "Behind a cache or CDN"). */
export interface CacheConfig {
  /** Seconds a browser may keep a public answer (`max-age`). */
  readonly maxAge: number;
  /** Seconds a shared cache may keep a public answer (`s-maxage`); 0: public answers say `no-cache`. */
  readonly sharedMaxAge: number;
  /** Base URLs of the caches purged after each event, as the WHATWG URL parser writes them (`http://varnish/`), each once. */
  readonly purgeUrls: readonly string[];
}

function canonicalUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return invalidConfiguration(`CACHE_PURGE_URLS lists ${url}, which is not a URL`);
  }
}

/** @throws ConfigValidationError naming the first invalid `cache` variable. */
export function loadCacheConfig(env: NodeJS.ProcessEnv): CacheConfig {
  const vars = readEnvironment(CacheVariables, CACHE_VARIABLES, env);
  const purgeUrls = [...new Set(vars.CACHE_PURGE_URLS.map(canonicalUrl))];
  return { maxAge: vars.CACHE_MAX_AGE, sharedMaxAge: vars.CACHE_SHARED_MAX_AGE, purgeUrls };
}

/** The `cache` namespace: `@Inject(cacheConfig.KEY) config: ConfigType<typeof cacheConfig>`. */
export const cacheConfig = registerAs('cache', () => loadCacheConfig(process.env));

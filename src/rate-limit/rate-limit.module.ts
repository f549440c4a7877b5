import { EventEmitter, once } from 'node:events';
import { Logger, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import { rateLimitConfig, RateLimitConfig } from '../config/rate-limit.config';
import { READS_THROTTLER, WRITES_THROTTLER } from './rate-limit.constants';
import { RateLimitGuard, trackerOf } from './rate-limit.guard';

// A slow or absent Redis costs a request at most ~0.5 s, after which the guard lets it through.
const REDIS_OPTIONS = {
  connectTimeout: 2_000,
  commandTimeout: 500,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
} as const;

/**
 * Logs a warning when `client` (ioredis) reports an error, once per outage (not per reconnect attempt), and a line when
 * it is ready again. Being a listener of `error`, it also keeps ioredis from printing "Unhandled error event".
 */
export function logRedisOutages(client: EventEmitter, logger: Pick<Logger, 'warn' | 'log'>): void {
  let down = false;
  client.on('error', (error: Error) => {
    if (!down) logger.warn(`Redis of the rate limits: ${error.message}; requests are served without limits meanwhile`);
    down = true;
  });
  client.on('ready', () => {
    if (down) logger.log('Redis of the rate limits answers again');
    down = false;
  });
}

/**
 * The counters' Redis storage when `REDIS_URL` is set (loaded only then), else undefined: process memory.
 * Start-up waits for its connection up to `connectTimeout`, so limits hold from the first request;
 * a Redis that does not answer by then is an outage, and requests are served without limits.
 */
async function createRateLimitStorage(limits: RateLimitConfig): Promise<ThrottlerStorage | undefined> {
  if (limits.redisUrl === undefined) return undefined;
  const { ThrottlerStorageRedisService } = await import('@nest-lab/throttler-storage-redis');
  const storage = new ThrottlerStorageRedisService(limits.redisUrl, {
    ...REDIS_OPTIONS,
    keyPrefix: limits.redisPrefix,
  });
  logRedisOutages(storage.redis, new Logger('RateLimit'));
  const signal = AbortSignal.timeout(REDIS_OPTIONS.connectTimeout);
  await once(storage.redis, 'ready', { signal }).catch(() => undefined);
  return storage;
}

/** ThrottlerModule options for the two budgets of {@link RateLimitGuard}; windows in milliseconds. */
async function createThrottlerOptions(limits: RateLimitConfig): Promise<ThrottlerModuleOptions> {
  const ttl = limits.windowSeconds * 1_000;
  return {
    throttlers: [
      { name: READS_THROTTLER, ttl, limit: limits.reads, getTracker: trackerOf },
      { name: WRITES_THROTTLER, ttl, limit: limits.writes, getTracker: trackerOf },
    ],
    // Only `Retry-After` on a 429 (set by the guard); no X-RateLimit-* headers on every response.
    setHeaders: false,
    storage: limits.enabled ? await createRateLimitStorage(limits) : undefined,
  };
}

/** Abuse limits (@nestjs/throttler); imported after `AuthModule`, so its guard sees a write's principal. */
@Module({
  imports: [ThrottlerModule.forRootAsync({ inject: [rateLimitConfig.KEY], useFactory: createThrottlerOptions })],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}

import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule, ThrottlerModuleOptions, ThrottlerStorage } from '@nestjs/throttler';
import { appConfig, AppConfigType } from '../config/app.config';
import type { RateLimitConfig } from '../config/environment';
import { RateLimitGuard, READS_THROTTLER, trackerOf, WRITES_THROTTLER } from './rate-limit.guard';

/**
 * Bounds of every Redis wait, so that a slow or absent Redis costs a request at most ~0.5 s
 * (after which `RateLimitGuard` lets it through) instead of hanging it. Without the offline
 * queue a command fails at once while the connection is down, rather than waiting for it.
 */
const REDIS_OPTIONS = {
  connectTimeout: 2_000,
  commandTimeout: 500,
  maxRetriesPerRequest: 1,
  enableOfflineQueue: false,
} as const;

/**
 * The counters: in Redis when `REDIS_URL` is set, so that every replica spends one shared budget
 * (a fixed window per key, one Lua script per request), else undefined — ThrottlerModule then
 * keeps them in this process's memory (a sliding window). The Redis storage and its client
 * (ioredis) are loaded only when configured.
 */
export async function createRateLimitStorage(limits: RateLimitConfig): Promise<ThrottlerStorage | undefined> {
  if (limits.redisUrl === undefined) return undefined;
  const { ThrottlerStorageRedisService } = await import('@nest-lab/throttler-storage-redis');
  // Given a URL, the storage owns the connection and closes it when the application shuts down.
  return new ThrottlerStorageRedisService(limits.redisUrl, { ...REDIS_OPTIONS, keyPrefix: limits.redisPrefix });
}

/** ThrottlerModule options for the two budgets of {@link RateLimitGuard}; windows in milliseconds. */
export async function createThrottlerOptions(config: AppConfigType): Promise<ThrottlerModuleOptions> {
  const limits = config.rateLimit;
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

/**
 * Abuse limits (@nestjs/throttler): reads per client address, writes per token subject, from
 * the validated configuration (`RATE_LIMIT_*`, `REDIS_URL`). Imported after `AuthModule`, so its
 * global guard runs after `JwtAuthGuard` and sees the principal of a write.
 */
@Module({
  imports: [ThrottlerModule.forRootAsync({ inject: [appConfig.KEY], useFactory: createThrottlerOptions })],
  providers: [{ provide: APP_GUARD, useClass: RateLimitGuard }],
})
export class RateLimitModule {}

import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { ThrottlerStorage } from '@nestjs/throttler';

/** The part of an ioredis client a readiness check needs (the storage builds a `Redis` from `REDIS_URL`). */
interface Pingable {
  ping(): Promise<string>;
}

/**
 * The Redis client of the rate-limit storage when it is Redis-backed
 * (`ThrottlerStorageRedisService` exposes it as `redis`), else undefined: the in-memory storage
 * has no dependency to check. Checked by shape so the Redis storage module stays loaded only when
 * configured.
 */
export function redisClientOf(storage: ThrottlerStorage): Pingable | undefined {
  const client: unknown = (storage as { redis?: unknown }).redis;
  return typeof client === 'object' && client !== null && typeof (client as Pingable).ping === 'function'
    ? (client as Pingable)
    : undefined;
}

/**
 * Readiness of Redis when the service uses it (`REDIS_URL` set and rate limits on): a `PING` on
 * the very connection that holds the shared rate-limit counters, so "up" means the counters work.
 * The client fails a command at once while disconnected and after 500 ms otherwise (its options
 * in `RateLimitModule`), so the check is bounded.
 */
@Injectable()
export class RedisHealthIndicator {
  private readonly client: Pingable | undefined;

  constructor(
    private readonly indicator: HealthIndicatorService,
    @Inject(ThrottlerStorage) storage: ThrottlerStorage,
  ) {
    this.client = redisClientOf(storage);
  }

  /** True when the service has a Redis dependency to check. */
  get configured(): boolean {
    return this.client !== undefined;
  }

  /**
   * @param key - the name of the check in the health result (`redis`).
   * @returns `{[key]: {status: 'up'}}` when Redis answers `PONG`, else `{[key]: {status: 'down',
   *   message}}`; never throws (terminus turns a down result into its 503).
   */
  async pingCheck<const Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicator.check(key);
    if (this.client === undefined) return check.up({ message: 'not configured' });
    try {
      const reply = await this.client.ping();
      return reply === 'PONG' ? check.up() : check.down({ message: 'unexpected reply to PING' });
    } catch {
      // The driver's message names hosts and ports; the result only says what is down.
      return check.down({ message: 'no answer to PING' });
    }
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { HealthIndicatorResult, HealthIndicatorService } from '@nestjs/terminus';
import { ThrottlerStorage } from '@nestjs/throttler';

/** The part of an ioredis client a readiness check needs. */
interface Pingable {
  ping(): Promise<string>;
}

/** The `redis` client of a Redis-backed rate-limit storage, checked by shape; else undefined. */
export function redisClientOf(storage: ThrottlerStorage): Pingable | undefined {
  const client: unknown = (storage as { redis?: unknown }).redis;
  return typeof client === 'object' && client !== null && typeof (client as Pingable).ping === 'function'
    ? (client as Pingable)
    : undefined;
}

/** Readiness of Redis when the rate limits use it: a `PING` on the connection that holds the counters. */
@Injectable()
export class RedisHealthIndicator {
  private readonly client: Pingable | undefined;

  constructor(
    private readonly indicator: HealthIndicatorService,
    @Inject(ThrottlerStorage) storage: ThrottlerStorage,
  ) {
    this.client = redisClientOf(storage);
  }

  /** Whether the service has a Redis dependency to check. */
  get configured(): boolean {
    return this.client !== undefined;
  }

  /** `{[key]: {status: 'up'}}` when Redis answers `PONG`, else `down` with a message; never throws. */
  async pingCheck<const Key extends string>(key: Key): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicator.check(key);
    if (this.client === undefined) return check.up({ message: 'not configured' });
    try {
      const reply = await this.client.ping();
      return reply === 'PONG' ? check.up() : check.down({ message: 'unexpected reply to PING' });
    } catch {
      // The driver's message names hosts and ports.
      return check.down({ message: 'no answer to PING' });
    }
  }
}

import { Test } from '@nestjs/testing';
import { HealthIndicatorService } from '@nestjs/terminus';
import { ThrottlerStorage, ThrottlerStorageService } from '@nestjs/throttler';
import { RedisHealthIndicator, redisClientOf } from './redis.health';

/** A rate-limit storage shaped like `ThrottlerStorageRedisService`: its client is `redis`. */
function redisStorage(ping: () => Promise<string>): ThrottlerStorage {
  return { redis: { ping }, increment: jest.fn() } as unknown as ThrottlerStorage;
}

async function indicatorWith(storage: ThrottlerStorage): Promise<RedisHealthIndicator> {
  const moduleRef = await Test.createTestingModule({
    providers: [RedisHealthIndicator, HealthIndicatorService, { provide: ThrottlerStorage, useValue: storage }],
  }).compile();
  return moduleRef.get(RedisHealthIndicator);
}

describe('RedisHealthIndicator', () => {
  it('is not configured when the counters live in memory', async () => {
    const indicator = await indicatorWith(new ThrottlerStorageService());

    expect(indicator.configured).toBe(false);
    expect(redisClientOf(new ThrottlerStorageService())).toBeUndefined();
  });

  it('is up when Redis answers PONG', async () => {
    const ping = jest.fn().mockResolvedValue('PONG');
    const indicator = await indicatorWith(redisStorage(ping));

    expect(indicator.configured).toBe(true);
    await expect(indicator.pingCheck('redis')).resolves.toEqual({ redis: { status: 'up' } });
    expect(ping).toHaveBeenCalledTimes(1);
  });

  it('is down, without the driver message (hosts, ports), when PING fails', async () => {
    const indicator = await indicatorWith(
      redisStorage(() => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.7:6379'))),
    );

    const result = await indicator.pingCheck('redis');

    expect(result).toEqual({ redis: { status: 'down', message: 'no answer to PING' } });
  });

  it('is down on a reply other than PONG', async () => {
    const indicator = await indicatorWith(redisStorage(() => Promise.resolve('LOADING')));

    await expect(indicator.pingCheck('redis')).resolves.toEqual({
      redis: { status: 'down', message: 'unexpected reply to PING' },
    });
  });
});

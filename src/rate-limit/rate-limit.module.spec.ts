import { EventEmitter } from 'node:events';
import { logRedisOutages } from './rate-limit.module';

describe('logRedisOutages', () => {
  it('warns once per outage, says when Redis answers again, and listens to error (no "Unhandled error event")', () => {
    const client = new EventEmitter();
    const logger = { warn: jest.fn(), log: jest.fn() };

    logRedisOutages(client, logger);
    client.emit('ready');
    client.emit('error', new Error('Command timed out'));
    client.emit('error', new Error('connect ECONNREFUSED 127.0.0.1:6379'));
    client.emit('ready');
    client.emit('error', new Error('read ECONNRESET'));

    expect(client.listenerCount('error')).toBe(1);
    expect(logger.warn.mock.calls).toEqual([
      ['Redis of the rate limits: Command timed out; requests are served without limits meanwhile'],
      ['Redis of the rate limits: read ECONNRESET; requests are served without limits meanwhile'],
    ]);
    expect(logger.log.mock.calls).toEqual([['Redis of the rate limits answers again']]);
  });
});

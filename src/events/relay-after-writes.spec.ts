import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { relayAfterWrites } from './relay-after-writes';

describe('relayAfterWrites', () => {
  const relay = { soon: jest.fn() };
  const middleware = relayAfterWrites(relay);

  beforeEach(() => jest.clearAllMocks());

  /** Runs the middleware on a request of `method`, then sends its answer with `status`. */
  function answer(method: string, status: number): { next: jest.Mock; finished: number } {
    const response = Object.assign(new EventEmitter(), { statusCode: status });
    const next = jest.fn();
    middleware({ method } as Request, response as unknown as Response, next);
    const finished = response.listenerCount('finish');
    response.emit('finish');
    return { next, finished };
  }

  it.each([
    ['POST', 201, 1],
    ['PATCH', 200, 1],
    ['PUT', 200, 1],
    ['DELETE', 204, 1],
    ['POST', 400, 0],
    ['PUT', 412, 0],
    ['DELETE', 500, 0],
  ])('%s answered %i: %i relay asked for', (method, status, calls) => {
    const { next } = answer(method, status);

    expect(next).toHaveBeenCalledTimes(1);
    expect(relay.soon).toHaveBeenCalledTimes(calls);
  });

  it.each(['GET', 'HEAD', 'OPTIONS'])('%s: no listener, no relay', (method) => {
    const { next, finished } = answer(method, 200);

    expect(next).toHaveBeenCalledTimes(1);
    expect(finished).toBe(0);
    expect(relay.soon).not.toHaveBeenCalled();
  });

  it('asks only once the answer is sent', () => {
    const response = Object.assign(new EventEmitter(), { statusCode: 201 });
    middleware({ method: 'POST' } as Request, response as unknown as Response, jest.fn());

    expect(relay.soon).not.toHaveBeenCalled();
    response.emit('finish');
    expect(relay.soon).toHaveBeenCalledTimes(1);
  });
});

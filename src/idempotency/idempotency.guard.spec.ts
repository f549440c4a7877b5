import { ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyRepository, KeyClaim } from './idempotency.repository';
import { IdempotentReplay } from './idempotent-replay';
import { IdempotentReplayFilter } from './idempotent-replay.filter';

/** A response double: the parts of Express's the guard and the filter use. */
class FakeResponse {
  statusCode = 200;
  readonly headers = new Map<string, string>();
  readonly sent: unknown[] = [];
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  setHeader(name: string, value: string): void {
    this.headers.set(name.toLowerCase(), value);
  }
  getHeader(name: string): string | undefined {
    return this.headers.get(name.toLowerCase());
  }
  json(body: unknown): this {
    this.sent.push(body);
    return this;
  }
}

/** The context of a POST with `headers` by `alice`, whose JSON body was already read. */
const contextOf = (headers: Record<string, string>, response: FakeResponse): ExecutionContext => {
  const request = { method: 'POST', path: '/api/v1/blogs', headers, user: { sub: 'alice', scopes: [] }, body: {} };
  Object.assign(request, { _body: true });
  const http = { getRequest: () => request, getResponse: () => response };
  return { switchToHttp: () => http } as unknown as ExecutionContext;
};

describe('IdempotencyGuard', () => {
  let guard: IdempotencyGuard;
  let keys: { [K in 'claim' | 'keep' | 'free']: jest.Mock };

  beforeEach(async () => {
    keys = {
      claim: jest.fn(),
      keep: jest.fn().mockResolvedValue(undefined),
      free: jest.fn().mockResolvedValue(undefined),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [IdempotencyGuard, { provide: IdempotencyRepository, useValue: keys }],
    }).compile();
    guard = moduleRef.get(IdempotencyGuard);
  });

  /** Lets a request with `key` through the guard, then answers `status` with `body` as Nest would. */
  const run = async (key: string | undefined, status: number, body: unknown): Promise<FakeResponse> => {
    const response = new FakeResponse();
    await expect(
      guard.canActivate(contextOf(key === undefined ? {} : { 'idempotency-key': key }, response)),
    ).resolves.toBe(true);
    response.status(status).json(body);
    await new Promise((resolve) => setImmediate(resolve));
    return response;
  };

  it('lets a request without the header through untouched', async () => {
    const response = await run(undefined, 201, { id: 1 });
    expect(keys.claim).not.toHaveBeenCalled();
    expect(response.sent).toEqual([{ id: 1 }]);
  });

  it.each([
    ['a 201', 201, 'keep'],
    ['a 404', 404, 'keep'],
    ['a 409', 409, 'keep'],
    ['a 429', 429, 'free'],
    ['a 500', 500, 'free'],
    ['a 503', 503, 'free'],
  ])('%s answer of a claimed key is %s, then sent', async (_name, status, settle) => {
    keys.claim.mockResolvedValue({ kind: 'claimed' } satisfies KeyClaim);
    const response = await run('k1', status, { answer: status });
    expect(keys.claim).toHaveBeenCalledWith('alice', 'k1', expect.any(Buffer));
    if (settle === 'keep') {
      expect(keys.keep).toHaveBeenCalledWith('alice', 'k1', expect.any(Buffer), { status, body: { answer: status } });
      expect(keys.free).not.toHaveBeenCalled();
    } else {
      expect(keys.free).toHaveBeenCalledWith('alice', 'k1', expect.any(Buffer));
      expect(keys.keep).not.toHaveBeenCalled();
    }
    expect(response.sent).toEqual([{ answer: status }]);
  });

  it.each([
    ['in flight', { kind: 'in-flight' }, 409],
    ['used with another request', { kind: 'reused' }, 422],
  ])('refuses a key %s with %s', async (_name, claim, status) => {
    keys.claim.mockResolvedValue(claim);
    await expect(guard.canActivate(contextOf({ 'idempotency-key': 'k' }, new FakeResponse()))).rejects.toMatchObject({
      status,
    });
  });

  it('replays a kept answer through IdempotentReplayFilter, with its status and headers', async () => {
    const answer = { status: 201, location: '/api/v1/blogs/7', etag: '"7-1"', body: { id: 7 } };
    keys.claim.mockResolvedValue({ kind: 'answered', answer } satisfies KeyClaim);
    const response = new FakeResponse();
    const context = contextOf({ 'idempotency-key': 'k2' }, response);
    const replay = await guard.canActivate(context).catch((error: unknown) => error);
    expect(replay).toBeInstanceOf(IdempotentReplay);

    new IdempotentReplayFilter().catch(replay as IdempotentReplay, context);

    expect(response.statusCode).toBe(201);
    expect(Object.fromEntries(response.headers)).toEqual({
      location: '/api/v1/blogs/7',
      etag: '"7-1"',
      'idempotent-replayed': 'true',
    });
    expect(response.sent).toEqual([{ id: 7 }]);
  });
});

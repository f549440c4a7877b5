import { ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { lastValueFrom, of } from 'rxjs';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { IdempotencyRepository, KeyClaim } from './idempotency.repository';

/** A response double: the parts of Express's the interceptor uses. */
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

/** The context of a GET-less write with `headers`, by `sub`, whose JSON body was already read. */
const contextOf = (headers: Record<string, string>, response: FakeResponse): ExecutionContext => {
  const request = { method: 'POST', path: '/api/v1/blogs', headers, user: { sub: 'alice', scopes: [] }, body: {} };
  Object.assign(request, { _body: true });
  return {
    switchToHttp: () => ({ getRequest: () => request, getResponse: () => response }),
  } as unknown as ExecutionContext;
};

describe('IdempotencyInterceptor', () => {
  let interceptor: IdempotencyInterceptor;
  let keys: { [K in 'claim' | 'keep' | 'free']: jest.Mock };

  beforeEach(async () => {
    keys = {
      claim: jest.fn(),
      keep: jest.fn().mockResolvedValue(undefined),
      free: jest.fn().mockResolvedValue(undefined),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [IdempotencyInterceptor, { provide: IdempotencyRepository, useValue: keys }],
    }).compile();
    interceptor = moduleRef.get(IdempotencyInterceptor);
  });

  /** Runs a request with `key` whose handler answers `status` (set as the route would) with `body`. */
  const run = async (key: string | undefined, status: number, body: unknown): Promise<FakeResponse> => {
    const response = new FakeResponse();
    const next = { handle: jest.fn(() => of(body)) };
    const observable = await interceptor.intercept(
      contextOf(key === undefined ? {} : { 'idempotency-key': key }, response),
      next,
    );
    const result = await lastValueFrom(observable);
    response.status(status).json(result);
    await new Promise((resolve) => setImmediate(resolve));
    return response;
  };

  it('leaves a request without the header alone', async () => {
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
  ])('%s answer of a claimed key is %s', async (_name, status, settle) => {
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

  it('replays a kept answer with its status and headers, whatever the route sets', async () => {
    const answer = { status: 201, location: '/api/v1/blogs/7', etag: '"7-1"', body: { id: 7 } };
    keys.claim.mockResolvedValue({ kind: 'answered', answer } satisfies KeyClaim);
    const response = await run('k2', 200, 'ignored');
    expect(response.statusCode).toBe(201);
    expect(Object.fromEntries(response.headers)).toEqual({
      location: '/api/v1/blogs/7',
      etag: '"7-1"',
      'idempotent-replayed': 'true',
    });
    expect(response.sent).toEqual([{ id: 7 }]);
  });
});

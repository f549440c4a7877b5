import { CallHandler, ExecutionContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { lastValueFrom, of, throwError } from 'rxjs';
import { EventRelayJob } from './event-relay.job';
import { RelayAfterWrites } from './relay-after-writes.interceptor';

describe('RelayAfterWrites', () => {
  const relay = { soon: jest.fn() };
  let interceptor: RelayAfterWrites;

  beforeEach(async () => {
    jest.clearAllMocks();
    const moduleRef = await Test.createTestingModule({
      providers: [RelayAfterWrites, { provide: EventRelayJob, useValue: relay }],
    }).compile();
    interceptor = moduleRef.get(RelayAfterWrites);
  });

  const context = (method: string) =>
    ({
      getType: () => 'http',
      switchToHttp: () => ({ getRequest: () => ({ method }) }),
    }) as unknown as ExecutionContext;
  const handler = (answer = of({})): CallHandler => ({ handle: () => answer });

  it.each([
    ['POST', 1],
    ['PATCH', 1],
    ['PUT', 1],
    ['DELETE', 1],
    ['GET', 0],
    ['HEAD', 0],
    ['OPTIONS', 0],
  ])('%s handled: %i relay asked for', async (method, calls) => {
    await lastValueFrom(interceptor.intercept(context(method), handler()));

    expect(relay.soon).toHaveBeenCalledTimes(calls);
  });

  it('a write that failed asks for none', async () => {
    await expect(
      lastValueFrom(interceptor.intercept(context('POST'), handler(throwError(() => new Error('refused'))))),
    ).rejects.toThrow('refused');

    expect(relay.soon).not.toHaveBeenCalled();
  });
});

import { Test } from '@nestjs/testing';
import { cacheConfig } from '../config/cache.config';
import { EventRegistry } from '../events/event-registry';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsRepository } from '../events/events.repository';
import { CacheMetrics } from './cache.metrics';
import { CachePurgeJob, MAX_RETRY_SECONDS, PURGE_BATCH, PURGE_LEASE_SECONDS, retrySeconds } from './cache-purge.job';
import { CachePurger } from './cache-purger';
import { CachePurgesRepository, PurgeClaim } from './cache-purges.repository';

const URL = 'http://varnish/';
const event = (id: number) => ({ id: String(id), type: 'blog.updated', occurredAt: new Date(), data: { id } });

describe('retrySeconds', () => {
  it.each([
    [1, 1],
    [2, 2],
    [4, 8],
    [5, MAX_RETRY_SECONDS],
    [40, MAX_RETRY_SECONDS],
  ])('after %i refusals in a row: %i s', (failures, seconds) => {
    expect(retrySeconds(failures)).toBe(seconds);
  });
});

describe('CachePurgeJob', () => {
  let relayed: () => Promise<void>;
  let claims: PurgeClaim[];
  let pages: ReturnType<typeof event>[][];
  const purges = { start: jest.fn(), claim: jest.fn(), advance: jest.fn(), refused: jest.fn(), backlog: jest.fn() };
  const purger = { purge: jest.fn() };
  const metrics = { purged: jest.fn(), backlog: jest.fn() };
  const relay = { afterRelay: jest.fn<void, [() => Promise<void>]>() };

  async function start(purgeUrls: string[]): Promise<CachePurgeJob> {
    jest.clearAllMocks();
    const moduleRef = await Test.createTestingModule({
      providers: [
        CachePurgeJob,
        { provide: cacheConfig.KEY, useValue: { maxAge: 0, sharedMaxAge: 60, purgeUrls } },
        { provide: EventRelayJob, useValue: relay },
        { provide: EventsRepository, useValue: { after: jest.fn(() => Promise.resolve(pages.shift() ?? [])) } },
        {
          provide: EventRegistry,
          useValue: { surrogateKeys: (e: { data: { id: number } }) => [`blog-${e.data.id}`, 'blogs'] },
        },
        { provide: CachePurgesRepository, useValue: purges },
        { provide: CachePurger, useValue: purger },
        { provide: CacheMetrics, useValue: metrics },
      ],
    }).compile();
    await moduleRef.init();
    relayed = () => Promise.all(relay.afterRelay.mock.calls.map(([subscriber]) => subscriber())).then(() => undefined);
    purges.claim.mockImplementation(() => Promise.resolve(claims));
    purges.advance.mockResolvedValue(true);
    purges.backlog.mockResolvedValue({ pending: 0, oldestSeconds: 0 });
    return moduleRef.get(CachePurgeJob);
  }

  beforeEach(() => {
    claims = [{ url: URL, purgedThrough: '10', failures: 0 }];
    pages = [];
  });

  it('without CACHE_PURGE_URLS: no relay subscriber, no rows', async () => {
    await start([]);

    expect(relay.afterRelay).not.toHaveBeenCalled();
    expect(purges.start).not.toHaveBeenCalled();
  });

  it('records the caches at start-up; in each relay, leases the due caches and purges each', async () => {
    await start([URL]);
    pages = [[event(11)]];
    purger.purge.mockResolvedValue({ sent: 1, error: null });

    expect(purges.start).toHaveBeenCalledWith([URL]);
    await relayed();
    expect(purges.claim).toHaveBeenCalledWith([URL], PURGE_LEASE_SECONDS);
    expect(purger.purge.mock.calls).toEqual([[URL, ['blog-11', 'blogs']]]);
    expect(purges.advance.mock.calls).toEqual([[URL, '10', '11', null]]);
  });

  it('purges batch by batch, each key once, moving the position only after a 2xx, keeping the lease between', async () => {
    await start([URL]);
    const full = Array.from({ length: PURGE_BATCH }, (_, i) => event(11 + (i % 2)));
    pages = [full, [event(13)]];
    purger.purge.mockResolvedValue({ sent: 1, error: null });

    await relayed();

    expect(purger.purge.mock.calls).toEqual([
      [URL, ['blog-11', 'blogs', 'blog-12']],
      [URL, ['blog-13', 'blogs']],
    ]);
    expect(purges.advance.mock.calls).toEqual([
      [URL, '10', '12', PURGE_LEASE_SECONDS],
      [URL, '12', '13', null],
    ]);
    expect(metrics.purged).toHaveBeenCalledWith(1, false);
  });

  it('stops when another run moved the position meanwhile', async () => {
    await start([URL]);
    pages = [Array.from({ length: PURGE_BATCH }, () => event(11)), [event(12)]];
    purger.purge.mockResolvedValue({ sent: 1, error: null });
    purges.advance.mockResolvedValue(false);

    await relayed();

    expect(purger.purge).toHaveBeenCalledTimes(1);
  });

  it('ends the lease without a request when the events are gone', async () => {
    await start([URL]);

    await relayed();

    expect(purger.purge).not.toHaveBeenCalled();
    expect(purges.advance.mock.calls).toEqual([[URL, '10', '10']]);
  });

  it('a refusal keeps the position and waits before the next try', async () => {
    await start([URL]);
    claims = [{ url: URL, purgedThrough: '10', failures: 2 }];
    pages = [[event(11)]];
    purger.purge.mockResolvedValue({ sent: 0, error: 'answered 503' });

    await relayed();

    expect(purges.advance).not.toHaveBeenCalled();
    expect(purges.refused).toHaveBeenCalledWith(URL, '10', retrySeconds(3));
    expect(metrics.purged).toHaveBeenCalledWith(0, true);
  });

  it('does nothing with no cache leased (none due, or another run holds it)', async () => {
    await start([URL]);
    claims = [];
    pages = [[event(11)]];

    await relayed();

    expect(purger.purge).not.toHaveBeenCalled();
    expect(purges.advance).not.toHaveBeenCalled();
  });
});

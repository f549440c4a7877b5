import { Test } from '@nestjs/testing';
import { cacheConfig } from '../config/cache.config';
import { EventRegistry } from '../events/event-registry';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsRepository } from '../events/events.repository';
import { JobQueue } from '../jobs/job-queue';
import { CacheMetrics } from './cache.metrics';
import { CACHE_PURGE_QUEUE, CachePurgeJob, MAX_RETRY_SECONDS, retrySeconds } from './cache-purge.job';
import { CachePurger } from './cache-purger';
import { CachePurgesRepository, PurgePosition } from './cache-purges.repository';

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
  let handle: (jobs: { data: { url: string } }[]) => Promise<void>;
  let position: PurgePosition;
  let pages: ReturnType<typeof event>[][];
  const purges = { start: jest.fn(), due: jest.fn(), position: jest.fn(), advance: jest.fn(), refused: jest.fn() };
  const purger = { purge: jest.fn() };
  const metrics = { purged: jest.fn(), backlog: jest.fn() };
  const jobs = { define: jest.fn(), send: jest.fn(), wake: jest.fn() };
  const relay = { afterRelay: jest.fn<void, [() => Promise<void>]>() };

  async function start(purgeUrls: string[]): Promise<CachePurgeJob> {
    jest.clearAllMocks();
    const moduleRef = await Test.createTestingModule({
      providers: [
        CachePurgeJob,
        { provide: cacheConfig.KEY, useValue: { maxAge: 0, sharedMaxAge: 60, purgeUrls } },
        { provide: JobQueue, useValue: jobs },
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
    handle = jobs.define.mock.calls[0]?.[0]?.handle;
    purges.position.mockImplementation(() => Promise.resolve(position));
    purges.advance.mockImplementation((_url: string, _from: string, to: string) => {
      position = { ...position, purgedThrough: to };
      return Promise.resolve(true);
    });
    return moduleRef.get(CachePurgeJob);
  }

  beforeEach(() => {
    position = { purgedThrough: '10', failures: 0, due: true };
    pages = [];
  });

  it('without CACHE_PURGE_URLS: no queue, no relay subscriber, no rows', async () => {
    await start([]);

    expect(jobs.define).not.toHaveBeenCalled();
    expect(relay.afterRelay).not.toHaveBeenCalled();
    expect(purges.start).not.toHaveBeenCalled();
  });

  it('records the caches at start-up; after each relay, one job per due cache keyed by its URL', async () => {
    await start([URL]);
    purges.due.mockResolvedValue([URL]);

    expect(purges.start).toHaveBeenCalledWith([URL]);
    expect(jobs.define.mock.calls[0][0].queue).toMatchObject({ name: CACHE_PURGE_QUEUE, policy: 'stately' });
    await relay.afterRelay.mock.calls[0][0]();
    expect(jobs.send).toHaveBeenCalledWith(CACHE_PURGE_QUEUE, { url: URL }, { singletonKey: URL });
    expect(jobs.wake).toHaveBeenCalledWith(CACHE_PURGE_QUEUE, 1);
  });

  it('purges batch by batch, each key once, moving the position only after a 2xx', async () => {
    await start([URL]);
    pages = [[event(11), event(12), event(11)], [event(13)]];
    purger.purge.mockResolvedValue({ sent: 1, error: null });

    await handle([{ data: { url: URL } }]);

    expect(purger.purge.mock.calls).toEqual([
      [URL, ['blog-11', 'blogs', 'blog-12']],
      [URL, ['blog-13', 'blogs']],
    ]);
    expect(purges.advance.mock.calls).toEqual([
      [URL, '10', '11'],
      [URL, '11', '13'],
    ]);
    expect(metrics.purged).toHaveBeenCalledWith(1, false);
  });

  it('a refusal keeps the position and waits before the next try', async () => {
    await start([URL]);
    position = { purgedThrough: '10', failures: 2, due: true };
    pages = [[event(11)]];
    purger.purge.mockResolvedValue({ sent: 0, error: 'answered 503' });

    await handle([{ data: { url: URL } }]);

    expect(purges.advance).not.toHaveBeenCalled();
    expect(purges.refused).toHaveBeenCalledWith(URL, '10', retrySeconds(3));
    expect(metrics.purged).toHaveBeenCalledWith(0, true);
  });

  it('does nothing while a refusal is waited out', async () => {
    await start([URL]);
    position = { purgedThrough: '10', failures: 1, due: false };
    pages = [[event(11)]];

    await handle([{ data: { url: URL } }]);

    expect(purger.purge).not.toHaveBeenCalled();
  });
});

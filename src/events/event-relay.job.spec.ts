import { Test } from '@nestjs/testing';
import { jobsConfig } from '../config/jobs.config';
import { JobQueue } from '../jobs/job-queue';
import { EventRegistry } from './event-registry';
import { EVENT_RELAY_QUEUE, EventRelayJob, RELAY_SOON_GAP_MS } from './event-relay.job';
import { EventsRepository } from './events.repository';

describe('EventRelayJob', () => {
  const jobs = { define: jest.fn(), send: jest.fn(), wake: jest.fn() };
  const registry = { beforeRelay: jest.fn() };
  let relayed: (() => void)[];
  const events = { relay: jest.fn(() => new Promise<void>((resolve) => relayed.push(resolve))) };
  const subscriber = jest.fn(() => Promise.resolve());

  async function start(enabled: boolean): Promise<EventRelayJob> {
    jest.clearAllMocks();
    relayed = [];
    const moduleRef = await Test.createTestingModule({
      providers: [
        EventRelayJob,
        { provide: JobQueue, useValue: jobs },
        { provide: EventsRepository, useValue: events },
        { provide: EventRegistry, useValue: registry },
        { provide: jobsConfig.KEY, useValue: { enabled, webhookAllowedHosts: [] } },
      ],
    }).compile();
    const job = moduleRef.get(EventRelayJob);
    job.afterRelay(subscriber);
    await moduleRef.init();
    return job;
  }

  /** Lets the relay's awaits go on. */
  const settle = () =>
    new Promise((resolve) => jest.requireActual<typeof import('timers')>('timers').setImmediate(resolve));

  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate'] }));
  afterEach(() => jest.useRealTimers());

  it('defines the events job, each second, sent at start-up', async () => {
    await start(true);

    expect(jobs.define.mock.calls[0][0]).toMatchObject({
      queue: { name: EVENT_RELAY_QUEUE, policy: 'short' },
      schedule: '* * * * *',
      sendAtStart: {},
    });
  });

  it('soon() relays at once: beforeRelay, the numbering, then the subscribers', async () => {
    const job = await start(true);
    job.soon();
    await settle();
    expect(registry.beforeRelay).toHaveBeenCalledTimes(1);
    expect(events.relay).toHaveBeenCalledTimes(1);
    relayed.shift()?.();
    await settle();
    expect(subscriber).toHaveBeenCalledTimes(1);
  });

  it('soon() during a relay folds into one more, started the gap after the first began', async () => {
    const job = await start(true);
    job.soon();
    await settle();
    job.soon();
    job.soon();
    relayed.shift()?.();
    await settle();
    expect(events.relay).toHaveBeenCalledTimes(1);

    jest.advanceTimersByTime(RELAY_SOON_GAP_MS);
    await settle();
    expect(events.relay).toHaveBeenCalledTimes(2);
  });

  it('soon() does nothing where the workers do not run (JOBS_ENABLED=false)', async () => {
    const job = await start(false);
    job.soon();
    jest.advanceTimersByTime(RELAY_SOON_GAP_MS);
    await settle();

    expect(events.relay).not.toHaveBeenCalled();
  });

  it('shutdown waits for the relay in flight, and no relay starts after it', async () => {
    const job = await start(true);
    job.soon();
    await settle();
    let stopped = false;
    const stopping = job.beforeApplicationShutdown().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    relayed.shift()?.();
    await stopping;
    job.soon();
    jest.advanceTimersByTime(RELAY_SOON_GAP_MS);
    await settle();

    expect(events.relay).toHaveBeenCalledTimes(1);
  });
});

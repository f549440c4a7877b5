import { Test } from '@nestjs/testing';
import { getDataSourceToken } from '@nestjs/typeorm';
import { databaseConfig } from '../config/database.config';
import { jobsConfig } from '../config/jobs.config';
import { JobQueue } from './job-queue';

/** Loads the fake pg-boss: called each time JobQueue loads the library after the module registry was reset. */
const mockLoadPgBoss = jest.fn(() => ({ PgBoss: FakeBoss, fromPglite: jest.fn() }));
jest.mock('pg-boss', () => mockLoadPgBoss());
jest.mock('./job-database', () => ({ primaryJobDatabase: jest.fn().mockResolvedValue({}) }));

/** pg-boss as far as JobQueue uses it, with the workers `getWipData` reports. */
class FakeBoss {
  static last: FakeBoss;
  readonly workers: { id: string; workId?: string; name: string; count: number; state?: string }[] = [];
  readonly offWork = jest.fn<Promise<void>, [string, object]>().mockResolvedValue(undefined);
  readonly calls: string[] = [];
  /** Each queue's options and worker, by name. */
  readonly queues = new Map<string, { options: object; work?: object; handler?: (jobs: object[]) => Promise<void> }>();
  readonly notifyWorker = jest.fn<void, [string]>();
  constructor() {
    FakeBoss.last = this;
  }
  on(): void {}
  async start(): Promise<void> {}
  async stop(): Promise<void> {
    this.calls.push('stop');
  }
  async getQueue(name: string): Promise<null> {
    this.calls.push(`getQueue ${name}`);
    return null;
  }
  async createQueue(name: string, options: object): Promise<void> {
    this.calls.push(`createQueue ${name}`);
    this.queues.set(name, { options });
  }
  async work(name: string, work: object, handler: (jobs: object[]) => Promise<void>): Promise<string> {
    this.calls.push(`work ${name}`);
    Object.assign(this.queues.get(name) ?? {}, { work, handler });
    this.added.push({ work, handler });
    return `worker${this.added.length}`;
  }
  /** Every work() call's options and handler, in order. */
  readonly added: { work: object; handler: (jobs: object[]) => Promise<void> }[] = [];
  async schedule(name: string, cron: string): Promise<void> {
    this.calls.push(`schedule ${name} ${cron}`);
  }
  async send(name: string): Promise<void> {
    this.calls.push(`send ${name}`);
  }
  getWipData() {
    return this.workers.map((worker) => ({ state: 'active', workId: worker.id, ...worker }));
  }
}

describe('JobQueue', () => {
  async function queue(enabled: boolean, define?: (jobs: JobQueue) => void): Promise<JobQueue> {
    const moduleRef = await Test.createTestingModule({
      providers: [
        JobQueue,
        { provide: getDataSourceToken(), useValue: { driver: {} } },
        { provide: jobsConfig.KEY, useValue: { enabled, webhookAllowedHosts: [] } },
        { provide: databaseConfig.KEY, useValue: { url: 'postgres://db' } },
      ],
    }).compile();
    const jobs = moduleRef.get(JobQueue);
    jobs.define({
      queue: { name: 'clock' },
      work: {},
      handle: async () => undefined,
      schedule: '* * * * *',
      sendAtStart: {},
    });
    define?.(jobs);
    await jobs.onApplicationBootstrap();
    return jobs;
  }

  it('creates, works, schedules and starts each queue defined, and stops the library on shutdown', async () => {
    const jobs = await queue(true);
    await jobs.beforeApplicationShutdown();

    expect(FakeBoss.last.calls).toEqual([
      'getQueue clock',
      'createQueue clock',
      'work clock',
      'schedule clock * * * * *',
      'send clock',
      'stop',
    ]);
  });

  it('defines a scheduled clean-up with the queue options every clean-up shares', async () => {
    const handle = jest.fn().mockResolvedValue(undefined);
    await queue(true, (jobs) =>
      jobs.defineCleanUp({ name: 'sweep', schedule: '5 * * * *', pollingIntervalSeconds: 45, handle }),
    );
    const sweep = FakeBoss.last.queues.get('sweep')!;

    expect(sweep.options).toEqual({ policy: 'short', retryLimit: 2, expireInSeconds: 600, deleteAfterSeconds: 3600 });
    expect(sweep.work).toEqual({ pollingIntervalSeconds: 45 });
    expect(FakeBoss.last.calls).toContain('schedule sweep 5 * * * *');
    expect(FakeBoss.last.calls).not.toContain('send sweep');
    await sweep.handler!([{}]);
    expect(handle).toHaveBeenCalledTimes(1);
  });

  it('neither starts the library nor sends without JOBS_ENABLED', async () => {
    jest.resetModules();
    mockLoadPgBoss.mockClear();
    const jobs = await queue(false);

    expect(mockLoadPgBoss).not.toHaveBeenCalled();
    await expect(jobs.send('clock', {})).rejects.toThrow('JOBS_ENABLED');
    expect(() => jobs.wake('clock')).not.toThrow();
  });

  it("adds workers of a defined queue with its handler, lists this process's running ones and stops them", async () => {
    const handle = jest.fn().mockResolvedValue(undefined);
    const jobs = await queue(true, (defined) => defined.define({ queue: { name: 'deliveries' }, work: {}, handle }));

    await expect(jobs.addWorkers('deliveries', { localConcurrency: 10 })).resolves.toBe('worker3');
    await expect(jobs.addWorkers('unknown', {})).resolves.toBeUndefined();
    await FakeBoss.last.added[2].handler([{ id: 'j' }]);
    expect(FakeBoss.last.added[2].work).toEqual({ localConcurrency: 10 });
    expect(handle).toHaveBeenCalledWith([{ id: 'j' }]);
    FakeBoss.last.workers.push(
      { id: 'a1', workId: 'worker3', name: 'deliveries', count: 1 },
      { id: 'a2', workId: 'worker3', name: 'deliveries', count: 0 },
      { id: 'a3', workId: 'worker3', name: 'deliveries', count: 0, state: 'stopping' },
      { id: 'b1', name: 'clock', count: 0 },
    );
    expect(jobs.workers('deliveries')).toEqual([
      { id: 'a1', workId: 'worker3', busy: true },
      { id: 'a2', workId: 'worker3', busy: false },
    ]);
    await jobs.stopWorkers('deliveries', 'worker3');
    expect(FakeBoss.last.offWork).toHaveBeenCalledWith('deliveries', { id: 'worker3', wait: false });
  });

  it.each([
    ['one idle worker', 1, ['a2']],
    ['up to the idle workers of the queue', 5, ['a2', 'a3']],
  ])('wakes %s', async (_name, count, woken) => {
    const jobs = await queue(true);
    FakeBoss.last.workers.push(
      { id: 'a1', name: 'deliveries', count: 1 },
      { id: 'b1', name: 'clock', count: 0 },
      { id: 'a2', name: 'deliveries', count: 0 },
      { id: 'a3', name: 'deliveries', count: 0 },
    );

    jobs.wake('deliveries', count);

    expect(FakeBoss.last.notifyWorker.mock.calls.map(([id]) => id)).toEqual(woken);
  });
});

import { Test } from '@nestjs/testing';
import { StatementRunner } from '../database/statement-runner';
import { EventRelayJob } from '../events/event-relay.job';
import { EventsService } from '../events/events.service';
import { JobQueue, QueueWorker } from '../jobs/job-queue';
import { WebhookMetrics } from './webhook.metrics';
import {
  ADDED_WORKERS_IDLE_MS,
  MAX_DELIVERY_WORKERS,
  WEBHOOK_DELIVERY_QUEUE,
  WebhookDeliveryJob,
} from './webhook-delivery.job';
import { WebhookSender } from './webhook-sender';
import { WebhooksRepository } from './webhooks.repository';

/** `count` workers of the set `workId`, the first `busy` of them busy. */
const workerSet = (workId: string, count: number, busy: number): QueueWorker[] =>
  Array.from({ length: count }, (_, i) => ({ id: `${workId}-${i}`, workId, busy: i < busy }));

describe('WebhookDeliveryJob workers', () => {
  let workers: QueueWorker[];
  let handle: (jobs: object[]) => Promise<void>;
  let afterRelay: (() => Promise<void>)[];
  const jobs = {
    define: jest.fn(),
    wake: jest.fn(),
    workers: jest.fn(() => workers),
    addWorkers: jest.fn(),
    stopWorkers: jest.fn().mockResolvedValue(undefined),
  };

  beforeEach(async () => {
    jest.clearAllMocks();
    afterRelay = [];
    const moduleRef = await Test.createTestingModule({
      providers: [
        WebhookDeliveryJob,
        { provide: JobQueue, useValue: jobs },
        {
          provide: EventRelayJob,
          useValue: { afterRelay: (subscriber: () => Promise<void>) => afterRelay.push(subscriber) },
        },
        { provide: EventsService, useValue: {} },
        // No delivery found: an attempt ends at once.
        { provide: WebhooksRepository, useValue: { target: jest.fn().mockResolvedValue(null) } },
        { provide: StatementRunner, useValue: {} },
        { provide: WebhookSender, useValue: {} },
        { provide: WebhookMetrics, useValue: {} },
      ],
    }).compile();
    moduleRef.get(WebhookDeliveryJob).onModuleInit();
    handle = jobs.define.mock.calls[0][0].handle;
  });

  const attempt = () => handle([{ data: { deliveryId: '1', attempt: 1 } }]);

  /** addWorkers as the library answers it: 10 more workers, `busy` of them busy at once. */
  const adding = (busy: number) =>
    jobs.addWorkers.mockImplementation(async () => {
      const id = `added${jobs.addWorkers.mock.calls.length}`;
      workers = [...workers, ...workerSet(id, 10, busy)];
      return id;
    });

  it('starts 10 more workers, sharing the per-webhook limit, while fewer than 10 are idle as an attempt starts', async () => {
    workers = workerSet('base', 25, 18);
    adding(8);

    await attempt();

    // 7 idle, then 9 with the first 10 added (8 of them busy at once), then 11.
    expect(jobs.addWorkers.mock.calls).toEqual([
      [WEBHOOK_DELIVERY_QUEUE, { pollingIntervalSeconds: 60, localConcurrency: 10, localGroupConcurrency: 10 }],
      [WEBHOOK_DELIVERY_QUEUE, { pollingIntervalSeconds: 60, localConcurrency: 10, localGroupConcurrency: 10 }],
    ]);
  });

  it.each([
    [MAX_DELIVERY_WORKERS - 10, 1],
    [MAX_DELIVERY_WORKERS - 9, 0],
    [MAX_DELIVERY_WORKERS, 0],
  ])('with %i workers, all busy, starts %i sets of 10: never more than MAX_DELIVERY_WORKERS', async (count, sets) => {
    workers = workerSet('base', count, count);
    adding(10);

    await attempt();

    expect(jobs.addWorkers).toHaveBeenCalledTimes(sets);
  });

  it('starts none while 10 are idle', async () => {
    workers = workerSet('base', 25, 15);

    await attempt();

    expect(jobs.addWorkers).not.toHaveBeenCalled();
  });

  it('stops added workers unused for a minute after a relay, while 10 idle remain without them', async () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    workers = workerSet('base', 25, 18);
    adding(8);
    await attempt();
    expect(jobs.addWorkers).toHaveBeenCalledTimes(2);
    const relayed = () => Promise.all(afterRelay.slice(2).map((subscriber) => subscriber()));
    const state = (baseBusy: number) => [
      ...workerSet('base', 25, baseBusy),
      ...workerSet('added1', 10, 0),
      ...workerSet('added2', 10, 1),
    ];

    workers = state(20);
    now.mockReturnValue(1_000_000 + ADDED_WORKERS_IDLE_MS - 1);
    await relayed();
    expect(jobs.stopWorkers).not.toHaveBeenCalled();
    // 19 idle: stopping added1 would leave 9.
    workers = state(25);
    now.mockReturnValue(1_000_000 + ADDED_WORKERS_IDLE_MS);
    await relayed();
    expect(jobs.stopWorkers).not.toHaveBeenCalled();
    workers = state(20);
    await relayed();

    expect(jobs.stopWorkers.mock.calls).toEqual([[WEBHOOK_DELIVERY_QUEUE, 'added1']]);
    now.mockRestore();
  });
});

import { Test } from '@nestjs/testing';
import { register } from 'prom-client';
import { ReadReplicas, ReplicaHealth } from '../database/read-replicas';
import { DB_REPLICA_METRICS, ReadReplicaMetrics } from './read-replica.metrics';

describe('ReadReplicaMetrics', () => {
  let health: Record<string, ReplicaHealth>;
  let metrics: ReadReplicaMetrics;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({
      providers: [ReadReplicaMetrics, { provide: ReadReplicas, useValue: { health: () => health } }],
    }).compile();
    metrics = moduleRef.get(ReadReplicaMetrics);
    metrics.onModuleInit();
  });

  afterEach(() => metrics.onModuleDestroy());

  it('reads each replica at scrape time: lag in seconds (none while unknown), serving as 1 or 0', async () => {
    health = {
      database_replica_1: { status: 'up', lagMs: 250, serving: true },
      database_replica_2: { status: 'down', lagMs: null, serving: false },
    };
    const text = await register.metrics();
    expect(text).toContain(`${DB_REPLICA_METRICS.lag}{replica="database_replica_1"} 0.25\n`);
    expect(text).not.toContain(`${DB_REPLICA_METRICS.lag}{replica="database_replica_2"}`);
    expect(text).toContain(`${DB_REPLICA_METRICS.serving}{replica="database_replica_1"} 1\n`);
    expect(text).toContain(`${DB_REPLICA_METRICS.serving}{replica="database_replica_2"} 0\n`);

    health = { database_replica_1: { status: 'up', lagMs: 1_500, serving: false } };
    const later = await register.metrics();
    expect(later).toContain(`${DB_REPLICA_METRICS.lag}{replica="database_replica_1"} 1.5\n`);
    expect(later).not.toContain('database_replica_2');
  });

  it('has no series without replicas, and unregisters its gauges when the module ends', async () => {
    health = {};
    expect(await register.metrics()).not.toMatch(/^db_replica_\w+\{/m);
    metrics.onModuleDestroy();
    expect(register.getSingleMetric(DB_REPLICA_METRICS.lag)).toBeUndefined();
    expect(register.getSingleMetric(DB_REPLICA_METRICS.serving)).toBeUndefined();
  });
});

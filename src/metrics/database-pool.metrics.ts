import { Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Gauge, register } from 'prom-client';
import { DataSource } from 'typeorm';

/** Name of the pool gauge; one series per `state`. */
const DB_POOL_CONNECTIONS = 'db_pool_connections';

interface PoolCounts {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

const isPoolCounts = (pool: unknown): pool is PoolCounts =>
  typeof pool === 'object' &&
  pool !== null &&
  typeof (pool as PoolCounts).totalCount === 'number' &&
  typeof (pool as PoolCounts).idleCount === 'number' &&
  typeof (pool as PoolCounts).waitingCount === 'number';

/**
 * `db_pool_connections{state="in_use"|"idle"|"waiting"}`, read from the TypeORM driver's pool when
 * Prometheus scrapes; registered while the module lives.
 */
@Injectable()
export class DatabasePoolMetrics implements OnModuleInit, OnModuleDestroy {
  private gauge?: Gauge<'state'>;

  constructor(private readonly dataSource: DataSource) {}

  onModuleInit(): void {
    register.removeSingleMetric(DB_POOL_CONNECTIONS);
    const dataSource = this.dataSource;
    this.gauge = new Gauge({
      name: DB_POOL_CONNECTIONS,
      help: 'Database pool connections: in_use (lent to a query), idle (open, free), waiting (callers queued).',
      labelNames: ['state'],
      collect(this: Gauge<'state'>): void {
        const pool: unknown = (dataSource.driver as { master?: unknown }).master;
        if (!dataSource.isInitialized || !isPoolCounts(pool)) {
          this.reset();
          return;
        }
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  onModuleDestroy(): void {
    // Only our own: another application of this process may have registered its gauge since.
    if (this.gauge !== undefined && register.getSingleMetric(DB_POOL_CONNECTIONS) === this.gauge) {
      register.removeSingleMetric(DB_POOL_CONNECTIONS);
    }
  }
}

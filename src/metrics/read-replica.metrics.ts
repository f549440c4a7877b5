import { Injectable, OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { ReadReplicas, ReplicaHealth } from '../database/read-replicas';
import { OwnedMetrics } from './owned-metrics';

/** Names of the replica gauges; one series per `replica` (`database_replica_<n>`). */
export const DB_REPLICA_METRICS = { lag: 'db_replica_lag_seconds', serving: 'db_replica_serving' } as const;

/**
 * `db_replica_lag_seconds{replica}` (absent while unknown) and `db_replica_serving{replica}` (1 while reads go to it),
 * read from {@link ReadReplicas} when Prometheus scrapes; registered while the module lives.
 */
@Injectable()
export class ReadReplicaMetrics extends OwnedMetrics implements OnModuleInit {
  constructor(private readonly replicas: ReadReplicas) {
    super();
  }

  onModuleInit(): void {
    const replicas = this.replicas;
    const gauge = (name: string, help: string, value: (health: ReplicaHealth) => number | null) => {
      this.own(Gauge, {
        name,
        help,
        labelNames: ['replica'] as const,
        collect(this: Gauge<'replica'>): void {
          this.reset();
          for (const [replica, health] of Object.entries(replicas.health())) {
            const current = value(health);
            if (current !== null) this.set({ replica }, current);
          }
        },
      });
    };
    gauge(DB_REPLICA_METRICS.lag, 'Replay lag of each read replica in seconds, as last measured.', ({ lagMs }) =>
      lagMs === null ? null : lagMs / 1000,
    );
    gauge(DB_REPLICA_METRICS.serving, 'Whether reads go to each read replica (1) or not (0).', ({ serving }) =>
      serving ? 1 : 0,
    );
  }
}

import { Module } from '@nestjs/common';
import { makeHistogramProvider, PrometheusModule } from '@willsoto/nestjs-prometheus';
import { DatabaseModule } from '../database/database.module';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { HTTP_DURATION_BUCKETS, HTTP_REQUEST_DURATION } from './http-metrics';
import { MetricsController } from './metrics.controller';
import { ReadReplicaMetrics } from './read-replica.metrics';

const httpRequestDuration = makeHistogramProvider({
  name: HTTP_REQUEST_DURATION,
  help: 'Duration of HTTP requests in seconds, from arrival to the last byte sent, by method, route template and status.',
  labelNames: ['method', 'route', 'status_code'],
  buckets: [...HTTP_DURATION_BUCKETS],
});

/** Prometheus metrics at `GET /metrics`: process metrics, request durations, the database pool and the read replicas. */
@Module({
  imports: [
    DatabaseModule,
    PrometheusModule.register({
      path: '/metrics',
      controller: MetricsController,
      defaultMetrics: { enabled: true },
    }),
  ],
  providers: [httpRequestDuration, DatabasePoolMetrics, ReadReplicaMetrics],
  exports: [httpRequestDuration],
})
export class MetricsModule {}

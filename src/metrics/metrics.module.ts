import { Module } from '@nestjs/common';
import { makeHistogramProvider, PrometheusModule } from '@willsoto/nestjs-prometheus';
import { DatabasePoolMetrics } from './database-pool.metrics';
import { HTTP_DURATION_BUCKETS, HTTP_REQUEST_DURATION } from './http-metrics';
import { MetricsController } from './metrics.controller';

const httpRequestDuration = makeHistogramProvider({
  name: HTTP_REQUEST_DURATION,
  help: 'Duration of HTTP requests in seconds, from arrival to the last byte sent, by method, route template and status.',
  labelNames: ['method', 'route', 'status_code'],
  buckets: [...HTTP_DURATION_BUCKETS],
});

/** Prometheus metrics at `GET /metrics`: process metrics, request durations and the database pool. */
@Module({
  imports: [
    PrometheusModule.register({
      path: '/metrics',
      controller: MetricsController,
      defaultMetrics: { enabled: true },
    }),
  ],
  providers: [httpRequestDuration, DatabasePoolMetrics],
  exports: [httpRequestDuration],
})
export class MetricsModule {}

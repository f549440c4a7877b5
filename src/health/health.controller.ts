import { Controller, Get, ServiceUnavailableException, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags, SchemaObject } from '@nestjs/swagger';
import {
  HealthCheck,
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorFunction,
  TypeOrmHealthIndicator,
} from '@nestjs/terminus';
import { Public } from '../auth/access.decorator';
import { ReadReplicas } from '../database/read-replicas';
import { ApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { RedisHealthIndicator } from './redis.health';

const INDICATORS: SchemaObject = {
  type: 'object',
  description:
    'Per check: `database` (the primary), `redis` when the rate limits use Redis, and `database_replica_<n>` per ' +
    'read replica, `{status, lagMs, serving}`; a replica that is down does not fail readiness.',
  additionalProperties: {
    type: 'object',
    required: ['status'],
    properties: { status: { type: 'string', enum: ['up', 'down'] } },
  },
};

/** OpenAPI schema of terminus's `HealthCheckResult` when every check is up. */
const HEALTHY: SchemaObject = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] }, info: INDICATORS, error: INDICATORS, details: INDICATORS },
};

function failedChecks(error: ServiceUnavailableException): string {
  const result = error.getResponse() as Partial<HealthCheckResult>;
  const names = Object.keys(result.error ?? {});
  return names.length > 0 ? names.join(', ') : 'unknown';
}

/** Liveness and readiness probes for orchestrators; no token needed; a 503 has the usual error body. */
@Controller({ path: 'health', version: VERSION_NEUTRAL })
@Public()
@ApiTags('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
    private readonly redis: RedisHealthIndicator,
    private readonly replicas: ReadReplicas,
  ) {}

  /** `GET /health/live` → 200 while the process serves HTTP. */
  @Get('live')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({ operationId: 'liveness', summary: 'Liveness: the process serves HTTP', security: [] })
  @ApiOkResponse({
    description: 'The process is up.',
    schema: HEALTHY,
    example: { status: 'ok', info: {}, error: {}, details: {} },
  })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /**
   * `GET /health/ready` → 200 when the primary database (3 s) and Redis, when used, answer; else 503 `Not ready: <checks>`.
   * Read replicas are listed with their state; reads fall back to the primary, so they do not fail readiness.
   */
  @Get('ready')
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: the database (and Redis, when configured) answers; 503 when not',
    security: [],
  })
  @ApiOkResponse({
    description: 'Ready: every dependency answers.',
    schema: HEALTHY,
    example: { status: 'ok', info: { database: { status: 'up' } }, error: {}, details: { database: { status: 'up' } } },
  })
  @ApiErrorResponses(503)
  async ready(): Promise<HealthCheckResult> {
    try {
      return this.withReplicas(await this.health.check(this.readinessChecks()));
    } catch (error) {
      if (error instanceof ServiceUnavailableException) {
        throw new ServiceUnavailableException(`Not ready: ${failedChecks(error)}`);
      }
      throw error;
    }
  }

  /** `result` with each read replica in `details`, and in `info` when it answers; never in `error`. */
  private withReplicas(result: HealthCheckResult): HealthCheckResult {
    const replicas = Object.entries(this.replicas.health());
    const answering = replicas.filter(([, replica]) => replica.status === 'up');
    return {
      ...result,
      info: { ...result.info, ...Object.fromEntries(answering) },
      details: { ...result.details, ...Object.fromEntries(replicas) },
    };
  }

  private readinessChecks(): HealthIndicatorFunction[] {
    const checks: HealthIndicatorFunction[] = [() => this.database.pingCheck('database', { timeout: 3_000 })];
    if (this.redis.configured) checks.push(() => this.redis.pingCheck('redis'));
    return checks;
  }
}

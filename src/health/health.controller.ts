import { Controller, Get, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckResult, HealthCheckService, TypeOrmHealthIndicator } from '@nestjs/terminus';
import { Public } from '../auth/access.decorator';

/** Liveness and readiness probes for orchestrators; no token needed. */
@Controller({ path: 'health', version: VERSION_NEUTRAL })
@Public()
@ApiTags('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly database: TypeOrmHealthIndicator,
  ) {}

  /** `GET /health/live` → 200 while the process serves HTTP. */
  @Get('live')
  @HealthCheck()
  @ApiOperation({ operationId: 'liveness', summary: 'Liveness: the process serves HTTP', security: [] })
  live(): Promise<HealthCheckResult> {
    return this.health.check([]);
  }

  /** `GET /health/ready` → 200 when the database answers within 3 s, else 503. */
  @Get('ready')
  @HealthCheck()
  @ApiOperation({
    operationId: 'readiness',
    summary: 'Readiness: the database answers (503 when it does not)',
    security: [],
  })
  ready(): Promise<HealthCheckResult> {
    return this.health.check([() => this.database.pingCheck('database', { timeout: 3_000 })]);
  }
}

import { Controller, Get, Res, VERSION_NEUTRAL } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { PrometheusController } from '@willsoto/nestjs-prometheus';
import type { Response } from 'express';
import { Public } from '../auth/access.decorator';

/** `GET /metrics`: the Prometheus text exposition of the default registry; no token. */
@Controller({ version: VERSION_NEUTRAL })
@Public()
@ApiTags('operations')
export class MetricsController extends PrometheusController {
  @Get()
  @ApiOperation({
    operationId: 'metrics',
    summary: 'Prometheus metrics',
    description:
      'HTTP request durations by method, route template and status; database pool connections; process metrics.',
    security: [],
  })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'Prometheus text exposition format 0.0.4.',
    content: { 'text/plain': { schema: { type: 'string' } } },
  })
  override index(@Res({ passthrough: true }) response: Response): Promise<string> {
    return super.index(response);
  }
}

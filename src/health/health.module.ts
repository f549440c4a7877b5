import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';

/** `GET /health/live` and `GET /health/ready` (@nestjs/terminus). */
@Module({
  imports: [TerminusModule],
  controllers: [HealthController],
})
export class HealthModule {}

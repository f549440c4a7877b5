import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { JobsModule } from '../jobs/jobs.module';
import { ExpiredKeysJob } from './expired-keys.job';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyRepository } from './idempotency.repository';

/** `Idempotency-Key` for any module's writes: import it and mark the handler `@Idempotent()`; expired keys are deleted. */
@Module({
  imports: [DatabaseModule, JobsModule, TypeOrmModule.forFeature([IdempotencyKey])],
  // The routes' IdempotencyGuard is made by Nest in their module, which needs the repository.
  providers: [IdempotencyRepository, ExpiredKeysJob],
  exports: [IdempotencyRepository],
})
export class IdempotencyModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { IdempotencyKey } from './idempotency-key.entity';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotencyRepository } from './idempotency.repository';

/** `Idempotency-Key` for any module's writes: import it and mark the handler `@Idempotent()`. */
@Module({
  imports: [DatabaseModule, TypeOrmModule.forFeature([IdempotencyKey])],
  providers: [IdempotencyRepository, IdempotencyGuard],
  exports: [IdempotencyRepository, IdempotencyGuard],
})
export class IdempotencyModule {}

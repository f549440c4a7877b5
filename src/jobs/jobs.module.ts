import { Module } from '@nestjs/common';
import { DatabaseModule } from '../database/database.module';
import { JobQueue } from './job-queue';

/** The job library: the queues feature modules define and, with `JOBS_ENABLED`, the workers of this process. */
@Module({
  imports: [DatabaseModule],
  providers: [JobQueue],
  exports: [JobQueue],
})
export class JobsModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { EventsModule } from '../events/events.module';
import { JobsModule } from '../jobs/jobs.module';
import { CacheMetrics } from './cache.metrics';
import { CachePurge } from './cache-purge.entity';
import { CachePurgeJob } from './cache-purge.job';
import { CachePurger } from './cache-purger';
import { CachePurgesRepository } from './cache-purges.repository';
import { SharedCache } from './shared-cache';

/**
 * Shared caches in front of the service (docs/operations.md, "Behind a cache or CDN"): {@link SharedCache} marks public
 * reads, for the feature modules that import this one; the purge job takes their answers back after each event.
 */
@Module({
  imports: [DatabaseModule, JobsModule, EventsModule, TypeOrmModule.forFeature([CachePurge])],
  providers: [SharedCache, CachePurgeJob, CachePurger, CachePurgesRepository, CacheMetrics],
  exports: [SharedCache],
})
export class SharedCacheModule {}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { JobsModule } from '../jobs/jobs.module';
import { TagsModule } from '../tags/tags.module';
import { BlogPublication } from './blog-publication.entity';
import { ChangesController } from './changes.controller';
import { ChangeEvent } from './event.entity';
import { EventRelayJob } from './event-relay.job';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { OutboxEvent } from './outbox-event.entity';

/**
 * Events of blog changes: the outbox that a trigger on `blogs` writes in each change's transaction, the events job
 * (scheduled blogs going live, the relay that numbers committed events), and the change feed `/api/v1/changes`.
 * Exports the feed's service, the relay and the job, for webhooks.
 */
@Module({
  imports: [
    DatabaseModule,
    JobsModule,
    TagsModule,
    TypeOrmModule.forFeature([ChangeEvent, OutboxEvent, BlogPublication]),
  ],
  controllers: [ChangesController],
  providers: [EventsService, EventsRepository, EventRelayJob],
  exports: [EventsService, EventsRepository, EventRelayJob],
})
export class EventsModule {}

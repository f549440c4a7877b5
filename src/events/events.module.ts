import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { JobsModule } from '../jobs/jobs.module';
import { ChangesController } from './changes.controller';
import { ChangeEvent } from './event.entity';
import { EventRegistry } from './event-registry';
import { EventRelayJob } from './event-relay.job';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { OutboxEvent } from './outbox-event.entity';

/**
 * Events of any resource: the outbox that each change's transaction writes, the registry of the resources that feature
 * modules register (event-resource.ts), the events job (their `beforeRelay`, the relay that numbers committed events,
 * asked for at once after each write by `relayAfterWrites`, which `setupApp` mounts), and the change feed
 * `/api/v1/changes`. Exports the feed's service, the registry, the relay and the job, for webhooks.
 */
@Module({
  imports: [DatabaseModule, DiscoveryModule, JobsModule, TypeOrmModule.forFeature([ChangeEvent, OutboxEvent])],
  controllers: [ChangesController],
  providers: [EventsService, EventsRepository, EventRegistry, EventRelayJob],
  exports: [EventsService, EventsRepository, EventRegistry, EventRelayJob],
})
export class EventsModule {}

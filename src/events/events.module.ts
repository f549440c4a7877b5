import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DatabaseModule } from '../database/database.module';
import { TagsModule } from '../tags/tags.module';
import { ChangesController } from './changes.controller';
import { ChangeEvent } from './event.entity';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { OutboxEvent } from './outbox-event.entity';

/**
 * Events of blog changes: the outbox that a trigger on `blogs` writes in each change's transaction, the relay that
 * numbers committed events, and the change feed `/api/v1/changes`.
 */
@Module({
  imports: [DatabaseModule, TagsModule, TypeOrmModule.forFeature([ChangeEvent, OutboxEvent])],
  controllers: [ChangesController],
  providers: [EventsService, EventsRepository],
})
export class EventsModule {}

import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { EventType } from './event-type';

/** An event written with its change and not yet numbered: `relay_events()` moves it into `events` once committed. */
@Entity({ name: 'event_outbox' })
export class OutboxEvent {
  /** Order of writing; rows of one resource are written under its row lock, so in commit order. */
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_event_outbox',
  })
  seq!: string;

  @Column({ type: 'text' })
  type!: EventType;

  @Column({ name: 'occurred_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  occurredAt!: Date;

  /** The JSON the writer stored, as the registering module's presenter reads it. */
  @Column({ type: 'json' })
  data!: Record<string, unknown>;
}

import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './event-type';

/**
 * A change in the feed, numbered by the relay in the order it committed (docs/architecture.md, "Events"). `data` is the
 * JSON its writer stored, which the module that registered the type presents.
 */
@Entity({ name: 'events' })
export class ChangeEvent {
  /** int8 as decimal digits: ids grow in feed order. */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'PK_events' })
  id!: string;

  @Column({ type: 'text' })
  type!: EventType;

  @Column({ name: 'occurred_at', type: 'timestamptz', precision: 3 })
  occurredAt!: Date;

  @Column({ type: 'json' })
  data!: Record<string, unknown>;
}

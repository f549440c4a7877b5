import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from './event-type';

/**
 * A change in the feed, numbered by the relay in the order it committed (docs/architecture.md, "Events"). `blog` is the
 * row as it was written, as JSON with its columns' names (`{id, slug}` for a deletion).
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
  blog!: Record<string, unknown>;
}

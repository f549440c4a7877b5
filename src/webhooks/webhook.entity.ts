import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventType } from '../events/event-type';

/** A registered receiver of events: its URL, the event types it wants and the secret its deliveries are signed with. */
@Entity({ name: 'webhooks' })
export class Webhook {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'PK_webhooks' })
  id!: string;

  @Column({ type: 'text' })
  url!: string;

  @Column({ type: 'text', array: true })
  events!: EventType[];

  /** `whsec_` and the base64 of 32 random bytes (Standard Webhooks); shown once, at registration. */
  @Column({ type: 'text' })
  secret!: string;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt!: Date;

  /** Set when its deliveries have failed for 5 days in a row: it receives nothing more. */
  @Column({ name: 'disabled_at', type: 'timestamptz', precision: 3, nullable: true })
  disabledAt!: Date | null;

  /** The first failed attempt since the last success, if any. */
  @Column({ name: 'failing_since', type: 'timestamptz', precision: 3, nullable: true })
  failingSince!: Date | null;

  /** The last event numbered before it was registered (int8 as digits): it receives those after. */
  @Column({ name: 'after_event_id', type: 'bigint' })
  afterEventId!: string;
}

import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Webhook } from './webhook.entity';

/** Where a delivery stands: being attempted, answered with a 2xx, or given up (retries over, or webhook disabled). */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One event owed to one webhook, written by the relay as it numbers the event; its attempts run as jobs. */
@Entity({ name: 'webhook_deliveries' })
@Unique('UQ_webhook_deliveries_webhook_id_event_id', ['webhookId', 'eventId'])
@Index('IDX_webhook_deliveries_state_created_at', ['state', 'createdAt'])
@Index('IDX_webhook_deliveries_queued', ['queued', 'id'])
export class WebhookDelivery {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_deliveries',
  })
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'FK_webhook_deliveries_webhook_id' })
  webhook?: Webhook;

  @Column({ name: 'event_id', type: 'bigint' })
  eventId!: string;

  @Column({ type: 'text', default: 'pending' })
  state!: DeliveryState;

  /** Attempts made so far; the job of attempt n + 1 acts only while this is n. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Whether its first attempt's job has been sent. */
  @Column({ type: 'boolean', default: false })
  queued!: boolean;

  @Column({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' })
  createdAt!: Date;
}

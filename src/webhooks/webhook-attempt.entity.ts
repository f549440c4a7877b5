import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Webhook } from './webhook.entity';

/** One POST of an event to a webhook, as its delivery log shows it. */
@Entity({ name: 'webhook_attempts' })
@Index('IDX_webhook_attempts_webhook_id_attempted_at_id', ['webhookId', 'attemptedAt', 'id'])
export class WebhookAttempt {
  @PrimaryGeneratedColumn('identity', {
    type: 'bigint',
    generatedIdentity: 'ALWAYS',
    primaryKeyConstraintName: 'PK_webhook_attempts',
  })
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @ManyToOne(() => Webhook, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id', foreignKeyConstraintName: 'FK_webhook_attempts_webhook_id' })
  webhook?: Webhook;

  @Column({ name: 'event_id', type: 'bigint' })
  eventId!: string;

  @Column({ name: 'attempted_at', type: 'timestamptz', precision: 3 })
  attemptedAt!: Date;

  /** The receiver's HTTP status; null when it did not answer. */
  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode!: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs!: number;

  /** Null on success, else a short reason. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;
}

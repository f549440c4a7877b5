import { ApiProperty } from '@nestjs/swagger';
import { EVENT_ID_PATTERN } from '../../events/event-id';
import { ClosedSchema } from '../../openapi/schema-rules';
import type { WebhookAttempt } from '../webhook-attempt.entity';
import { WEBHOOK_LOG_SIZE } from '../webhooks.constants';
import { InstantProperty } from '../../openapi/schema-properties';

/** One attempt to deliver an event, as the delivery log shows it. */
@ClosedSchema()
export class WebhookAttemptResponse {
  @ApiProperty({ pattern: EVENT_ID_PATTERN.source, example: '42' })
  readonly eventId!: string;

  @InstantProperty({ example: '2026-01-31T12:00:00.000Z' })
  readonly attemptedAt!: Date;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The receiver’s HTTP status; null when it did not answer.',
  })
  readonly statusCode!: number | null;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'From sending to the answer (or giving up), in ms.' })
  readonly durationMs!: number;

  @ApiProperty({ type: String, nullable: true, description: 'Null on success, else a short reason.' })
  readonly error!: string | null;
}

/** A webhook's last attempts, newest first. */
@ClosedSchema()
export class WebhookAttemptListResponse {
  @ApiProperty({ type: [WebhookAttemptResponse], maxItems: WEBHOOK_LOG_SIZE })
  readonly data!: WebhookAttemptResponse[];
}

/** `attempt` as the delivery log shows it. */
export function toWebhookAttemptResponse(attempt: WebhookAttempt): WebhookAttemptResponse {
  const { eventId, attemptedAt, statusCode, durationMs, error } = attempt;
  return { eventId, attemptedAt, statusCode, durationMs, error };
}

import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { EVENT_TYPE_SCHEMA } from '../../events/dto/event-response.dto';
import type { EventType } from '../../events/event-type';
import { ClosedSchema } from '../../openapi/schema-rules';
import type { Webhook } from '../webhook.entity';
import { WEBHOOK_URL_MAX_LENGTH } from '../webhooks.constants';
import { InstantProperty } from '../../openapi/schema-properties';

/** A webhook as the API shows it: never its secret, but at registration. */
@ClosedSchema()
export class WebhookResponse {
  @ApiProperty({ format: 'uuid', example: '0b5c8a36-8f0e-4f5e-9a3c-2b8d1f6e7a90' })
  readonly id!: string;

  @ApiProperty({ maxLength: WEBHOOK_URL_MAX_LENGTH, example: 'https://hooks.example.com/blog' })
  readonly url!: string;

  @ApiProperty({ type: 'array', items: { $ref: getSchemaPath(EVENT_TYPE_SCHEMA) } })
  readonly events!: EventType[];

  @InstantProperty({ example: '2026-01-31T12:00:00.000Z' })
  readonly createdAt!: Date;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When it was disabled after 5 days of failed deliveries; delete and register it again to resume.',
  })
  readonly disabledAt!: Date | null;
}

/** A webhook just registered, with its signing secret: shown only in this answer. */
@ClosedSchema()
export class CreatedWebhookResponse extends WebhookResponse {
  @ApiProperty({
    pattern: '^whsec_[A-Za-z0-9+/]{43}=$',
    description: 'The Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes.',
  })
  readonly secret!: string;
}

/** The webhooks. */
@ClosedSchema()
export class WebhookListResponse {
  @ApiProperty({ type: [WebhookResponse] })
  readonly data!: WebhookResponse[];
}

/** `webhook` as the API shows it. */
export function toWebhookResponse(webhook: Webhook): WebhookResponse {
  const { id, url, events, createdAt, disabledAt } = webhook;
  return { id, url, events, createdAt, disabledAt };
}

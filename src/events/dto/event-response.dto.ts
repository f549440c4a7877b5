import { ApiProperty } from '@nestjs/swagger';
import { EVENT_ID_PATTERN } from '../event-id';
import type { EventType } from '../event-type';

/** OpenAPI name of the registered event types' enum (event-openapi.ts). */
export const EVENT_TYPE_SCHEMA = 'EventType';

/**
 * One change, as the feed and webhooks send it: `{id, type, occurredAt, <resource>: payload}`, the key the resource
 * that the type's prefix names. Its OpenAPI schema is made from the registry, one variant per resource (event-openapi.ts).
 */
export class EventResponse {
  @ApiProperty({
    pattern: EVENT_ID_PATTERN.source,
    description: 'Decimal digits; ids increase as numbers in feed order.',
    example: '42',
  })
  readonly id!: string;

  @ApiProperty({ type: String, example: 'blog.created' })
  readonly type!: EventType;

  @ApiProperty({
    type: String,
    format: 'date-time',
    description: 'When the change committed its transaction (database clock), ISO 8601 UTC with milliseconds.',
    example: '2026-01-31T12:00:00.000Z',
  })
  readonly occurredAt!: Date;

  /** The payload, under the name of the type's resource (`blog`). */
  readonly [resource: string]: unknown;
}

import { ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsString, MaxLength } from 'class-validator';
import { EVENT_TYPE_SCHEMA } from '../../events/dto/event-response.dto';
import type { EventType } from '../../events/event-type';
import { WEBHOOK_URL_MAX_LENGTH } from '../webhooks.constants';

/** Body of `POST /api/v1/webhooks`; the most basic check of a field sits at the bottom (rules run bottom-up). */
export class CreateWebhookDto {
  @ApiProperty({
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    description:
      'An `https://` URL whose host resolves to global unicast addresses only (no loopback, private, link-local, ' +
      'shared, documentation, multicast or metadata address).',
    example: 'https://hooks.example.com/blog',
  })
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  @IsString()
  readonly url!: string;

  /** Registered types only: the service checks them against the registry (400 otherwise). */
  @ApiProperty({ type: 'array', items: { $ref: getSchemaPath(EVENT_TYPE_SCHEMA) }, minItems: 1, uniqueItems: true })
  @IsString({ each: true })
  @ArrayUnique()
  @ArrayNotEmpty()
  @IsArray()
  readonly events!: EventType[];
}

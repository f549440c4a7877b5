import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import { EVENT_TYPES, EventType } from '../../events/event-type';
import { WEBHOOK_URL_MAX_LENGTH } from '../webhooks.constants';

/** Body of `POST /api/v1/webhooks`. */
export class CreateWebhookDto {
  @ApiProperty({
    maxLength: WEBHOOK_URL_MAX_LENGTH,
    description:
      'An `https://` URL whose host resolves to global unicast addresses only (no loopback, private, link-local, ' +
      'shared, documentation, multicast or metadata address).',
    example: 'https://hooks.example.com/blog',
  })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX_LENGTH)
  readonly url!: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true, minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(EVENT_TYPES.length)
  @ArrayUnique()
  @IsIn(EVENT_TYPES, { each: true, message: `each value in events must be one of ${EVENT_TYPES.join(', ')}` })
  readonly events!: EventType[];
}

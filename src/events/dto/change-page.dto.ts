import { ApiProperty } from '@nestjs/swagger';
import { ClosedSchema } from '../../openapi/schema-rules';
import { CHANGES_PAGING } from './list-changes-query.dto';
import { EVENT_ID_PATTERN } from '../event-id';
import { EventResponse } from './event-response.dto';

/** A page of the change feed. */
@ClosedSchema()
export class ChangePageResponse {
  @ApiProperty({ type: [EventResponse], maxItems: CHANGES_PAGING.maxLimit, description: 'Events in feed order.' })
  readonly data!: EventResponse[];

  @ApiProperty({
    type: String,
    nullable: true,
    pattern: EVENT_ID_PATTERN.source,
    description:
      'The `after` of the next page: the id of the last event here, or the `after` asked with when the page is ' +
      'empty (null when none was given and the feed is empty).',
    example: '42',
  })
  readonly nextAfter!: string | null;
}

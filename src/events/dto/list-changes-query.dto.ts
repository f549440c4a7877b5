import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { parseCanonicalInteger } from '../../common/canonical-integer';
import { EVENT_ID_PATTERN, IsEventId } from '../event-id';

/** Paging bounds of `GET /changes`. */
export const CHANGES_PAGING = { defaultLimit: 100, maxLimit: 1000 } as const;

/** Query of `GET /api/v1/changes`: the events after `after`, `limit` of them. */
export class ListChangesQueryDto {
  @ApiPropertyOptional({
    type: String,
    pattern: EVENT_ID_PATTERN.source,
    description: 'The `nextAfter` of an earlier page, or an event id (`42`); from the first event when absent.',
  })
  @IsOptional()
  @IsEventId({ message: 'after must be an event id: decimal digits without sign or leading zeros, at most 2^63 - 1' })
  readonly after?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: CHANGES_PAGING.maxLimit,
    default: CHANGES_PAGING.defaultLimit,
    description: 'Page size, written in decimal digits without sign or leading zero.',
  })
  @Max(CHANGES_PAGING.maxLimit)
  @Min(1)
  @IsInt({ message: 'limit must be an integer in decimal digits, without sign or leading zeros' })
  @Transform(parseCanonicalInteger)
  readonly limit: number = CHANGES_PAGING.defaultLimit;
}

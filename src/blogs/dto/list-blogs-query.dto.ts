import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { INT4_MAX, parseCanonicalInteger } from '../../common/canonical-integer';

/** Paging bounds of the list operation. */
export const PAGING = { defaultLimit: 10, maxLimit: 100, defaultOffset: 0, maxOffset: INT4_MAX } as const;

/** Query of `GET /api/v1/blogs`; decorators run bottom-up, so the integer check comes first. */
export class ListBlogsQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: PAGING.maxLimit,
    default: PAGING.defaultLimit,
    description: 'Page size, written in decimal digits without sign or leading zero.',
    example: 10,
  })
  @Transform(parseCanonicalInteger)
  @Max(PAGING.maxLimit)
  @Min(1)
  @IsInt({ message: 'limit must be an integer in decimal digits, without sign or leading zeros' })
  readonly limit: number = PAGING.defaultLimit;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: PAGING.maxOffset,
    default: PAGING.defaultOffset,
    description: 'Number of blogs to skip, written in decimal digits without sign or leading zero.',
    example: 0,
  })
  @Transform(parseCanonicalInteger)
  @Max(PAGING.maxOffset)
  @Min(0)
  @IsInt({ message: 'offset must be an integer in decimal digits, without sign or leading zeros' })
  readonly offset: number = PAGING.defaultOffset;
}

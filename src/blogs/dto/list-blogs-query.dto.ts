import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { INT4_MAX, parseCanonicalInteger } from '../../common/canonical-integer';

/** Paging bounds of the list operation, from the API contract. */
export const PAGING = { defaultLimit: 10, maxLimit: 100, defaultOffset: 0, maxOffset: INT4_MAX } as const;

/**
 * Query of `GET /api/v1/blogs`: `limit` 1–100 (default 10), `offset` 0–2147483647 (default 0).
 * Decorators run bottom-up: the integer check comes first.
 */
export class ListBlogsQueryDto {
  @Transform(parseCanonicalInteger)
  @Max(PAGING.maxLimit)
  @Min(1)
  @IsInt({ message: 'limit must be an integer written in decimal digits' })
  readonly limit: number = PAGING.defaultLimit;

  @Transform(parseCanonicalInteger)
  @Max(PAGING.maxOffset)
  @Min(0)
  @IsInt({ message: 'offset must be an integer written in decimal digits' })
  readonly offset: number = PAGING.defaultOffset;
}

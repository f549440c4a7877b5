import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** Largest value of an int4, the bound of ids and offsets. */
export const INT4_MAX = 2_147_483_647;

/** Paging bounds of the list operation, from the API contract. */
export const PAGING = { defaultLimit: 10, maxLimit: 100, defaultOffset: 0, maxOffset: INT4_MAX } as const;

/**
 * Turns a canonical decimal string (`0` or no leading zero, no sign, no exponent) into a number
 * and leaves anything else (arrays, `01`, `1e3`, `-1`, empty) unchanged, so `@IsInt()` rejects it.
 * Query values arrive as strings; this is the only conversion they get.
 */
export function parseCanonicalInteger({ value }: { value: unknown }): unknown {
  return typeof value === 'string' && /^(0|[1-9][0-9]*)$/.test(value) ? Number(value) : value;
}

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

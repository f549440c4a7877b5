import { applyDecorators, type Type } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min, ValidateBy } from 'class-validator';
import { INT4_MAX, parseCanonicalInteger } from '../canonical-integer';
import { CURSOR_SYNTAX, MAX_CURSOR_LENGTH } from './cursor-signer';

/** Paging bounds of every list operation. */
export const PAGING = { defaultLimit: 10, maxLimit: 100, defaultOffset: 0, maxOffset: INT4_MAX } as const;

// Each list below is in the order TypeScript would apply the same decorators stacked, so the type check runs first
// (docs/architecture.md, "Request flow").

/** The `limit` query property: canonical decimal digits, 1 to {@link PAGING}.maxLimit, default 10. */
export const PageLimit = (): PropertyDecorator =>
  applyDecorators(
    IsInt({ message: 'limit must be an integer in decimal digits, without sign or leading zeros' }),
    Min(1),
    Max(PAGING.maxLimit),
    Transform(parseCanonicalInteger),
    ApiPropertyOptional({
      type: 'integer',
      minimum: 1,
      maximum: PAGING.maxLimit,
      default: PAGING.defaultLimit,
      description: 'Page size, written in decimal digits without sign or leading zero.',
      example: 10,
    }),
  );

/** The `offset` query property: how many `plural` (`blogs`) to skip, 0 to int4; not with `cursor` (unless `cursors: false`: a list without). */
export const PageOffset = (
  plural: string,
  { cursors = true }: { readonly cursors?: boolean } = {},
): PropertyDecorator =>
  applyDecorators(
    IsOptional(),
    IsInt({ message: 'offset must be an integer in decimal digits, without sign or leading zeros' }),
    Min(0),
    Max(PAGING.maxOffset),
    Transform(parseCanonicalInteger),
    ApiPropertyOptional({
      type: 'integer',
      minimum: 0,
      maximum: PAGING.maxOffset,
      default: PAGING.defaultOffset,
      description: `Number of ${plural} to skip, written in decimal digits without sign or leading zero.${cursors ? ' Not with `cursor`.' : ''}`,
      example: 0,
    }),
  );

/** The `cursor` query property: a `nextCursor` of this service, never beside `offset`; `description` says what it continues. */
export const PageCursor = (description: string): PropertyDecorator =>
  applyDecorators(
    IsOptional(),
    IsString(),
    Matches(CURSOR_SYNTAX, { message: 'cursor must be the nextCursor of an earlier answer' }),
    ValidateBy({
      name: 'isWithoutOffset',
      validator: {
        validate: (_value: unknown, args): boolean => (args?.object as { offset?: unknown }).offset === undefined,
        defaultMessage: () => 'cursor and offset cannot be combined: a cursor continues where its page ended',
      },
    }),
    ApiPropertyOptional({ maxLength: MAX_CURSOR_LENGTH, description }),
  );

/** A list query of paging only: `limit`, `offset` and `cursor`; any other parameter is 400. */
export interface PageQuery {
  readonly limit: number;
  readonly offset?: number;
  readonly cursor?: string;
}

/**
 * The query class of a list with paging only, which a module's query DTO extends: `offset` skips `plural`
 * (`comments`), `cursor` continues after the last `item` (`comment`) of an earlier answer for `list`.
 */
export function PageQueryOf({ plural, item, list }: { plural: string; item: string; list: string }): Type<PageQuery> {
  class PagingOnly implements PageQuery {
    @PageLimit()
    readonly limit: number = PAGING.defaultLimit;

    @PageOffset(plural)
    readonly offset?: number;

    @PageCursor(
      `The \`nextCursor\` of an earlier answer for ${list}, to continue after its last ${item} (\`limit\` may ` +
        'change). Not with `offset`.',
    )
    readonly cursor?: string;
  }
  return PagingOnly;
}

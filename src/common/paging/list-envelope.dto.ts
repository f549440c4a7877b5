import type { Type } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { ListEnvelope, OffsetListEnvelope, TotalRelation } from './list-envelope';
import { PAGING } from './paging-query';

/** How a list's envelope describes its items: `plural` (`blogs`), the description of `data`, and of `total`. */
interface ListEnvelopeWording {
  readonly plural: string;
  readonly data: string;
  /** Default: the number of all `plural` matching the filters. */
  readonly total?: string;
}

/** The OpenAPI class of the {@link ListEnvelope} of `item`s, or with `cursors: false` of the {@link OffsetListEnvelope}; a module's response class extends it. */
export function ListEnvelopeOf<T>(item: Type<T>, wording: ListEnvelopeWording): Type<ListEnvelope<T>>;
export function ListEnvelopeOf<T>(
  item: Type<T>,
  wording: ListEnvelopeWording,
  options: { readonly cursors: false },
): Type<OffsetListEnvelope<T>>;
export function ListEnvelopeOf<T>(
  item: Type<T>,
  wording: ListEnvelopeWording,
  { cursors = true }: { readonly cursors?: boolean } = {},
): Type<ListEnvelope<T> | OffsetListEnvelope<T>> {
  class OffsetEnvelope {
    @ApiProperty({ type: [item], maxItems: PAGING.maxLimit, description: wording.data })
    readonly data!: readonly T[];

    @ApiProperty({
      type: 'integer',
      minimum: 0,
      description: wording.total ?? `Number of all ${wording.plural} matching the filters (not only this page).`,
      example: 1,
    })
    readonly total!: number;

    @ApiProperty({
      enum: ['eq', 'gte'],
      description:
        '`eq` when `total` is exact; `gte` when it is a lower bound (a search past its count limit: `total` is then ' +
        "that limit). The convention of Elasticsearch's `track_total_hits`.",
      example: 'eq',
    })
    readonly totalRelation!: TotalRelation;

    @ApiProperty({
      type: 'integer',
      minimum: 1,
      maximum: PAGING.maxLimit,
      description: 'The effective limit.',
      example: 10,
    })
    readonly limit!: number;

    @ApiProperty({
      type: 'integer',
      minimum: 0,
      maximum: PAGING.maxOffset,
      ...(cursors
        ? { nullable: true, description: 'The effective offset; null when the page was asked for with `cursor`.' }
        : { description: 'The effective offset.' }),
      example: 0,
    })
    readonly offset!: number | null;
  }
  if (!cursors) return OffsetEnvelope as Type<OffsetListEnvelope<T>>;

  class Envelope extends OffsetEnvelope {
    @ApiProperty({
      type: String,
      nullable: true,
      description:
        'An opaque cursor for the next page (send it as `cursor`, with the same filters and `sort`) when more ' +
        `matching ${wording.plural} follow this page; else null.`,
      example: null,
    })
    readonly nextCursor!: string | null;
  }
  return Envelope;
}

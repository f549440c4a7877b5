import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import { PageLimit, PageOffset, PAGING } from '../../common/paging/paging-query';
import { DEFAULT_TAG_SORT, TAG_SORTS, TagSort } from '../tag-list';

/** Query of `GET /api/v1/tags`: paging by offset only (no `cursor`) and the order; decorators run bottom-up. */
export class ListTagsQueryDto {
  @PageLimit()
  readonly limit: number = PAGING.defaultLimit;

  @PageOffset('tags', { cursors: false })
  readonly offset: number = PAGING.defaultOffset;

  @ApiPropertyOptional({
    enum: TAG_SORTS,
    default: DEFAULT_TAG_SORT,
    description:
      '`-count`: most live blogs first, ties by `slug`; `slug`: by slug. Slugs compare code points (ascending).',
  })
  @IsIn(TAG_SORTS, { message: `sort must be one of ${TAG_SORTS.join(', ')}` })
  readonly sort: TagSort = DEFAULT_TAG_SORT;
}

import { EnumParam } from '../../common/http/enum-param.decorator';
import { PageLimit, PageOffset, PAGING } from '../../common/paging/paging-query';
import { DEFAULT_TAG_SORT, TAG_SORTS, TagSort } from '../tag-list';

/** Query of `GET /api/v1/tags`: paging by offset only (no `cursor`) and the order; decorators run bottom-up. */
export class ListTagsQueryDto {
  @PageLimit()
  readonly limit: number = PAGING.defaultLimit;

  @PageOffset('tags', { cursors: false })
  readonly offset: number = PAGING.defaultOffset;

  @EnumParam(TAG_SORTS, {
    default: DEFAULT_TAG_SORT,
    description:
      '`-count`: most live blogs first, ties by `slug`; `slug`: by slug. Slugs compare code points (ascending).',
  })
  readonly sort: TagSort = DEFAULT_TAG_SORT;
}

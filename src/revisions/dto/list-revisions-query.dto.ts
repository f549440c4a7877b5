import { PageCursor, PageLimit, PageOffset, PAGING } from '../../common/paging/paging-query';

/** Query of `GET /api/v1/blogs/:id/revisions`: paging only; any other parameter is 400. */
export class ListRevisionsQueryDto {
  @PageLimit()
  readonly limit: number = PAGING.defaultLimit;

  @PageOffset('revisions')
  readonly offset?: number;

  @PageCursor(
    "The `nextCursor` of an earlier answer for the same blog's revisions, to continue after its last revision " +
      '(`limit` may change). Not with `offset`.',
  )
  readonly cursor?: string;
}

import { PageCursor, PageLimit, PageOffset, PAGING } from '../../common/paging/paging-query';

/** Query of `GET /api/v1/blogs/:id/comments`: paging only; any other parameter is 400. */
export class ListCommentsQueryDto {
  @PageLimit()
  readonly limit: number = PAGING.defaultLimit;

  @PageOffset('comments')
  readonly offset?: number;

  @PageCursor(
    "The `nextCursor` of an earlier answer for the same blog's comments, to continue after its last comment " +
      '(`limit` may change). Not with `offset`.',
  )
  readonly cursor?: string;
}

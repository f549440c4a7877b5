import { PageQueryOf } from '../../common/paging/paging-query';

/** Query of `GET /api/v1/blogs/:id/comments`: paging only; any other parameter is 400. */
export class ListCommentsQueryDto extends PageQueryOf({
  plural: 'comments',
  item: 'comment',
  list: "the same blog's comments",
}) {}

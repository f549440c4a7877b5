import { PageQueryOf } from '../../common/paging/paging-query';

/** Query of `GET /api/v1/blogs/:id/revisions`: paging only; any other parameter is 400. */
export class ListRevisionsQueryDto extends PageQueryOf({
  plural: 'revisions',
  item: 'revision',
  list: "the same blog's revisions",
}) {}

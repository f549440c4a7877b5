import { Injectable } from '@nestjs/common';
import { CursorSigner } from '../common/paging/cursor-signer';
import { INSTANT_THEN_ID, KeysetCursorFormat, KeysetCursors, KeysetPosition } from '../common/paging/keyset-cursor';

/** The one order of a blog's comments: `createdAt`, then `id`, ascending. */
export const COMMENT_SORT = 'createdAt';
export type CommentSort = typeof COMMENT_SORT;

/** Where a page of comments starts: after the comment with this `createdAt` and `id`. */
export type CommentListPosition = KeysetPosition<Date>;

/** What a cursor is bound to besides the order: the blog whose comments it continues. */
export interface CommentListScope {
  readonly blogId: number;
}

/** A comment list cursor: list `comments`, version 1, the last comment's `createdAt` (ms) and id, the blog's digest. */
const COMMENT_LIST_CURSORS: KeysetCursorFormat<CommentSort, CommentListPosition, CommentListScope> = {
  list: 'comments',
  version: 1,
  sorts: [COMMENT_SORT],
  key: INSTANT_THEN_ID.key,
  position: INSTANT_THEN_ID.position,
  scope: ({ blogId }) => [blogId],
  otherScope: "cursor was made for another blog's comments: use it with the blog it came from",
};

/** Keyset cursors of a blog's comments (docs/architecture.md, "Cursors"): bound to the list and to the blog. */
@Injectable()
export class CommentListCursors extends KeysetCursors<CommentSort, CommentListPosition, CommentListScope> {
  constructor(signer: CursorSigner) {
    super(signer, COMMENT_LIST_CURSORS);
  }
}

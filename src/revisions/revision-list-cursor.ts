import { Injectable } from '@nestjs/common';
import { CursorSigner } from '../common/paging/cursor-signer';
import { isCursorId, KeysetCursorFormat, KeysetCursors } from '../common/paging/keyset-cursor';

/** The one order of a blog's revisions: `version`, descending (newest first). */
export const REVISION_SORT = '-version';
export type RevisionSort = typeof REVISION_SORT;

/** Where a page of revisions starts: after the revision with this version. */
export interface RevisionListPosition {
  readonly version: number;
}

/** What a cursor is bound to besides the order: the blog whose revisions it continues. */
export interface RevisionListScope {
  readonly blogId: number;
}

/** A revision list cursor: list `revisions`, version 1, the last revision's version, the blog's digest. */
const REVISION_LIST_CURSORS: KeysetCursorFormat<RevisionSort, RevisionListPosition, RevisionListScope> = {
  list: 'revisions',
  version: 1,
  sorts: [REVISION_SORT],
  key: ({ version }) => [version],
  position: (key) => (key.length === 1 && isCursorId(key[0]) ? { version: key[0] } : undefined),
  scope: ({ blogId }) => [blogId],
  otherScope: "cursor was made for another blog's revisions: use it with the blog it came from",
};

/** Keyset cursors of a blog's revisions (docs/architecture.md, "Cursors"): bound to the list and to the blog. */
@Injectable()
export class RevisionListCursors extends KeysetCursors<RevisionSort, RevisionListPosition, RevisionListScope> {
  constructor(signer: CursorSigner) {
    super(signer, REVISION_LIST_CURSORS);
  }
}

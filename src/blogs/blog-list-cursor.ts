import { Injectable } from '@nestjs/common';
import { CursorSigner } from '../common/paging/cursor-signer';
import { isCursorId, KeysetCursorFormat, KeysetCursors } from '../common/paging/keyset-cursor';
import { BLOG_SORTS, BlogFilters, BlogListPosition, BlogSort, sortOrder } from './blog-list';
import type { BlogListStatus } from './blog-status';

/** What a cursor is bound to besides the sort: the filters and the status. */
export interface BlogListSelection extends BlogFilters {
  readonly status: BlogListStatus;
}

/**
 * A blog list cursor: version 1, the sort, the last blog's sort value (ms for instants, null for a draft's
 * `publishedAt`) and id, the digest of the filters, the status and the sort. No list name: its cursors are older.
 */
const BLOG_LIST_CURSORS: KeysetCursorFormat<BlogSort, BlogListPosition, BlogListSelection> = {
  version: 1,
  sorts: BLOG_SORTS,
  key: ({ id, value }) => (value === undefined ? [id] : [value instanceof Date ? value.getTime() : value, id]),
  position: positionOf,
  scope: filterValues,
  otherScope:
    'cursor was made for other filters: use it with the same author, q, createdAfter, createdBefore, updatedAfter, tag and status',
};

/** Keyset cursors of the blog list (docs/architecture.md, "Cursors"), bound to the sort and the filters they continue. */
@Injectable()
export class BlogListCursors extends KeysetCursors<BlogSort, BlogListPosition, BlogListSelection> {
  constructor(signer: CursorSigner) {
    super(signer, BLOG_LIST_CURSORS);
  }
}

/** The filters as the query compares them (instants in ms), the sort, then the status and tags when given. */
function filterValues(filters: BlogListSelection, sort: BlogSort): unknown[] {
  const { author, q, createdAfter, createdBefore, updatedAfter, status, tag } = filters;
  const instants = [createdAfter, createdBefore, updatedAfter].map((instant) => instant?.getTime());
  // Status and tags join the end only when given, so that cursors made before they existed stay valid.
  const statusEntry = status === 'published' ? [] : [{ status }];
  const tagEntry = tag === undefined ? [] : [{ tag: [...tag].sort() }];
  return [author, q, ...instants, sort, ...statusEntry, ...tagEntry];
}

/** The position a signed key holds, or undefined when its shape does not fit the sort. */
function positionOf(key: readonly unknown[], sort: BlogSort): BlogListPosition | undefined {
  const { field } = sortOrder(sort);
  const [first, second] = key;
  if (field === 'id') return key.length === 1 && isCursorId(first) ? { id: first } : undefined;
  if (key.length !== 2 || !isCursorId(second)) return undefined;
  if (field === 'title') return typeof first === 'string' ? { id: second, value: first } : undefined;
  if (field === 'publishedAt' && first === null) return { id: second, value: null };
  return Number.isSafeInteger(first) ? { id: second, value: new Date(first as number) } : undefined;
}

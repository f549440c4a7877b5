import { BadRequestException, Injectable } from '@nestjs/common';
import { CursorSigner, queryDigest } from '../common/paging/cursor-signer';
import { BLOG_SORTS, BlogFilters, BlogListPosition, BlogSort, sortOrder } from './blog-list';
import type { BlogListStatus } from './blog-status';

/** What a cursor is bound to besides the sort: the filters and the status. */
export interface BlogListSelection extends BlogFilters {
  readonly status: BlogListStatus;
}

/** Version of the payload; a cursor of another version is refused like any cursor not made here. */
const CURSOR_VERSION = 1;

/**
 * What a blog list cursor carries: version, sort, the last blog's sort value (ms for instants, null for a draft's
 * `publishedAt`) and id, the digest of the filters and the status.
 */
interface CursorPayload {
  readonly v: number;
  readonly s: BlogSort;
  readonly k: readonly (number | string | null)[];
  readonly f: string;
}

/** Keyset cursors of the blog list (docs/architecture.md, "Cursors"), bound to the sort and the filters they continue. */
@Injectable()
export class BlogListCursors {
  constructor(private readonly signer: CursorSigner) {}

  /** The cursor of the page after `position` in the list that `filters` and `sort` select. */
  encode(sort: BlogSort, filters: BlogListSelection, position: BlogListPosition): string {
    const { value } = position;
    const key = value === undefined ? [position.id] : [value instanceof Date ? value.getTime() : value, position.id];
    const payload: CursorPayload = { v: CURSOR_VERSION, s: sort, k: key, f: filterDigest(sort, filters) };
    return this.signer.sign(payload);
  }

  /**
   * The position `cursor` continues after.
   * @throws BadRequestException naming `cursor` when this service did not make it (or it was changed), or
   *   made it for another `sort` or other filters.
   */
  decode(cursor: string, sort: BlogSort, filters: BlogListSelection): BlogListPosition {
    const payload = this.signer.verify(cursor) as CursorPayload;
    const position = payload.v === CURSOR_VERSION ? decodedPosition(payload) : undefined;
    if (position === undefined)
      throw new BadRequestException([
        'cursor is not valid for this version of the service: start again from the first page',
      ]);
    if (payload.s !== sort) {
      throw new BadRequestException([`cursor was made for sort=${payload.s}: use it with that sort`]);
    }
    if (payload.f !== filterDigest(sort, filters)) {
      throw new BadRequestException([
        'cursor was made for other filters: use it with the same author, q, createdAfter, createdBefore, updatedAfter, tag and status',
      ]);
    }
    return position;
  }
}

/** The digest of the filters as the query compares them (instants in ms), the status and the sort. */
function filterDigest(sort: BlogSort, filters: BlogListSelection): string {
  const { author, q, createdAfter, createdBefore, updatedAfter, status, tag } = filters;
  const instants = [createdAfter, createdBefore, updatedAfter].map((instant) => instant?.getTime());
  // Status and tags join the end only when given, so that cursors made before they existed stay valid.
  const statusEntry = status === 'published' ? [] : [{ status }];
  const tagEntry = tag === undefined ? [] : [{ tag: [...tag].sort() }];
  return queryDigest([author, q, ...instants, sort, ...statusEntry, ...tagEntry]);
}

/** The position a signed payload holds, or undefined when its shape does not fit its sort. */
function decodedPosition(payload: CursorPayload): BlogListPosition | undefined {
  const key: unknown = payload.k;
  if (!(BLOG_SORTS as readonly string[]).includes(payload.s) || !Array.isArray(key)) return undefined;
  const { field } = sortOrder(payload.s);
  const [first, second] = key as unknown[];
  if (field === 'id') return key.length === 1 && isId(first) ? { id: first } : undefined;
  if (key.length !== 2 || !isId(second)) return undefined;
  if (field === 'title') return typeof first === 'string' ? { id: second, value: first } : undefined;
  if (field === 'publishedAt' && first === null) return { id: second, value: null };
  return Number.isSafeInteger(first) ? { id: second, value: new Date(first as number) } : undefined;
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value);

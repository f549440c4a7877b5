import { Injectable } from '@nestjs/common';
import { CursorSigner } from '../common/paging/cursor-signer';
import { INSTANT_THEN_ID, KeysetCursorFormat, KeysetCursors, KeysetPosition } from '../common/paging/keyset-cursor';
import type { FeedFormat } from './feed-formats';

/** The one order of a feed: `publishedAt`, then `id`, descending. */
export const FEED_SORT = '-publishedAt';
export type FeedSort = typeof FEED_SORT;

/** Where a feed document starts: after the blog published at `value` with this `id`. */
export type FeedPosition = KeysetPosition<Date>;

/** What a feed cursor is bound to: the format and the filters of the feed it continues. */
export interface FeedSelection {
  readonly format: FeedFormat;
  readonly tag?: string;
  readonly author?: string;
}

/** A feed cursor: list `feed`, version 1, the last entry's `publishedAt` (ms) and id, the digest of the selection. */
const FEED_CURSORS: KeysetCursorFormat<FeedSort, FeedPosition, FeedSelection> = {
  list: 'feed',
  version: 1,
  sorts: [FEED_SORT],
  key: INSTANT_THEN_ID.key,
  position: INSTANT_THEN_ID.position,
  scope: ({ format, tag, author }) => [format, tag, author],
  otherScope: 'cursor was made for another feed: use it with the same format, tag and author',
};

/** Keyset cursors of the feeds (RFC 5005 §3 `next` links), bound to the format and the filters. */
@Injectable()
export class FeedCursors extends KeysetCursors<FeedSort, FeedPosition, FeedSelection> {
  constructor(signer: CursorSigner) {
    super(signer, FEED_CURSORS);
  }
}

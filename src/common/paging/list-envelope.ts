import type { Response } from 'express';

/**
 * Whether a list's `total` is exact (`eq`) or a lower bound (`gte`, a search past its cap), as Elasticsearch's
 * `hits.total.relation` says.
 */
export type TotalRelation = 'eq' | 'gte';

/**
 * A page of a list as a service answers it: the items, the total (exact unless `totalRelation` is `gte`), its offset
 * (null after a cursor), the next cursor.
 */
export interface ListPage<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Absent: `eq`. */
  readonly totalRelation?: TotalRelation;
  readonly offset: number | null;
  readonly nextCursor: string | null;
}

/** A page of a list without cursors: the items, the exact total, its offset. */
export interface OffsetListPage<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly offset: number;
}

/** The JSON envelope of a list answer: `{data, total, totalRelation, limit, offset, nextCursor}`. */
export interface ListEnvelope<T> {
  readonly data: readonly T[];
  readonly total: number;
  readonly totalRelation: TotalRelation;
  readonly limit: number;
  readonly offset: number | null;
  readonly nextCursor: string | null;
}

/** The JSON envelope of a list without cursors: `{data, total, totalRelation, limit, offset}`. */
export interface OffsetListEnvelope<T> {
  readonly data: readonly T[];
  readonly total: number;
  readonly totalRelation: TotalRelation;
  readonly limit: number;
  readonly offset: number;
}

/** The envelope of `page`, asked for with `limit`, each item mapped by `toItem`; `nextCursor` when the page has one. */
export function listEnvelope<E, T>(page: ListPage<E>, limit: number, toItem: (entity: E) => T): ListEnvelope<T>;
export function listEnvelope<E, T>(
  page: OffsetListPage<E>,
  limit: number,
  toItem: (entity: E) => T,
): OffsetListEnvelope<T>;
export function listEnvelope<E, T>(
  page: ListPage<E> | OffsetListPage<E>,
  limit: number,
  toItem: (entity: E) => T,
): ListEnvelope<T> | OffsetListEnvelope<T> {
  const data = page.items.map(toItem);
  const { total } = page;
  const totalRelation = 'totalRelation' in page ? (page.totalRelation ?? 'eq') : 'eq';
  return 'nextCursor' in page
    ? { data, total, totalRelation, limit, offset: page.offset, nextCursor: page.nextCursor }
    : { data, total, totalRelation, limit, offset: page.offset };
}

/**
 * Sets the `Link` header (RFC 8288) of the page after a list answer, when `nextCursor` is set: `collectionPath` with the
 * request's parameters, `cursor` in place of `offset` (and of an earlier cursor).
 */
export function linkNextPage(
  response: Response,
  collectionPath: string,
  requestUrl: string,
  nextCursor: string | null,
): void {
  if (nextCursor === null) return;
  const query = new URLSearchParams(requestUrl.split('?')[1] ?? '');
  query.delete('offset');
  query.delete('cursor');
  query.append('cursor', nextCursor);
  response.setHeader('Link', `<${collectionPath}?${query.toString()}>; rel="next"`);
}

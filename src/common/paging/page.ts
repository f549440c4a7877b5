import type { TotalRelation } from './list-envelope';

/** A page request of a list with cursors: `limit`, and `offset` or `cursor` (never both; the DTO's paging decorators). */
export interface PageRequest {
  readonly limit: number;
  readonly offset?: number;
  readonly cursor?: string;
}

/** Where a page starts, as a repository reads it: `limit` items after `offset` of them, or after the position `after`. */
export interface PageWindow<Position> {
  readonly limit: number;
  /** Items skipped before the page (0 after a cursor). */
  readonly offset: number;
  readonly after?: Position;
}

/** A page as a repository reads it: at most `limit` items, the total (exact unless `gte`), whether more follow. */
export interface FetchedPage<T> {
  readonly items: readonly T[];
  readonly total: number;
  /** Absent: `eq`. */
  readonly totalRelation?: TotalRelation;
  readonly more: boolean;
}

/**
 * SQL of a page with its total from one snapshot: `SELECT <head>, p.* FROM <from> LEFT JOIN LATERAL (<page>) p ON
 * true<rest>`. `head` names the total `"total"`; an empty page is one row of nulls beside it ({@link pageOfRows}).
 */
export const pageWithTotalSql = (head: string, from: string, page: string, rest = ''): string =>
  `SELECT ${head}, p.* FROM ${from} LEFT JOIN LATERAL (${page}) p ON true${rest}`;

/**
 * The page of the rows of a {@link pageWithTotalSql} statement that read up to `limit + 1` rows: the rows with an `id`
 * (an empty page's row has none) mapped by `toItem`, at most `limit`, the `total` of the first row (0 without rows),
 * and whether a row beyond `limit` came.
 */
export function pageOfRows<Row extends Record<string, unknown>, T>(
  rows: readonly Row[],
  limit: number,
  toItem: (row: Row) => T,
): FetchedPage<T> & { readonly items: T[] } {
  const items = rows.filter((row) => row.id !== null).map(toItem);
  const more = items.length > limit;
  return { items: more ? items.slice(0, limit) : items, total: Number(rows[0]?.total ?? 0), more };
}

/** `make` called once per key, its results kept: statements that write a page size into their text, one per size. */
export function perKey<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

import { CursorSigner, queryDigest } from './cursor-signer';
import type { ListPage } from './list-envelope';
import type { FetchedPage, PageRequest, PageWindow } from './page';
import { PAGING } from './paging-query';
import { ValidationProblemException } from '../filters/problem-types';

const invalidCursor = (message: string): ValidationProblemException =>
  ValidationProblemException.parameter('cursor', message, true);

/** A value of a cursor's key: instants as epoch milliseconds, ids, text, null. */
export type CursorKeyValue = number | string | null;

/** Where a keyset page starts: after the row with this `id` and this `value` of the order's field. */
export interface KeysetPosition<V> {
  readonly id: number;
  readonly value: V;
}

/**
 * What one list's keyset cursors hold and how they are checked (docs/architecture.md, "Cursors"): `Sort` names the
 * orders, `Position` where a page starts, `Scope` what else a cursor is bound to (the filters, the parent's id).
 */
export interface KeysetCursorFormat<Sort extends string, Position, Scope> {
  /**
   * The list's name, carried as `l` and checked first, so that no list takes another's cursors. Only the blog list,
   * whose cursors are older than the field, has none, so that they keep their bytes.
   */
  readonly list?: string;
  /** Version of the payload; a cursor of another version is refused, telling the client to start again. */
  readonly version: number;
  /** The orders of the list. */
  readonly sorts: readonly Sort[];
  /** The key of `position` in the order `sort`: what the page after it compares with. */
  key(position: Position, sort: Sort): readonly CursorKeyValue[];
  /** The position a signed `key` holds, or undefined when its shape does not fit `sort`. */
  position(key: readonly unknown[], sort: Sort): Position | undefined;
  /** The values a cursor is bound to besides the sort, as the query compares them (instants in ms); their digest is signed. */
  scope(scope: Scope, sort: Sort): readonly unknown[];
  /** The 400 message for a cursor used with another scope: `cursor was made for other filters: …`. */
  readonly otherScope: string;
}

/** The signed payload: list, version, sort, key, digest of the scope. */
interface CursorPayload {
  readonly l?: unknown;
  readonly v?: unknown;
  readonly s?: unknown;
  readonly k?: unknown;
  readonly f?: unknown;
}

/** The key of a position at an instant, then an id: `[epoch ms, id]`; for lists ordered by `createdAt, id`. */
export const INSTANT_THEN_ID = {
  key: ({ value, id }: KeysetPosition<Date>): CursorKeyValue[] => [value.getTime(), id],
  position: (key: readonly unknown[]): KeysetPosition<Date> | undefined => {
    const [ms, id] = key;
    return key.length === 2 && Number.isSafeInteger(ms) && isCursorId(id)
      ? { id, value: new Date(ms as number) }
      : undefined;
  },
} as const;

/** Whether a signed key value is an id. */
export const isCursorId = (value: unknown): value is number => Number.isSafeInteger(value);

/**
 * Keyset cursors of one list ({@link KeysetCursorFormat}), signed by {@link CursorSigner}; a list's provider extends
 * it with its format.
 */
export class KeysetCursors<Sort extends string, Position, Scope> {
  constructor(
    private readonly signer: CursorSigner,
    private readonly format: KeysetCursorFormat<Sort, Position, Scope>,
  ) {}

  /** The cursor of the page after `position` in the list that `scope` and `sort` select. */
  encode(sort: Sort, scope: Scope, position: Position): string {
    const { list, version } = this.format;
    const payload = { l: list, v: version, s: sort, k: this.format.key(position, sort), f: this.digest(sort, scope) };
    return this.signer.sign(payload);
  }

  /**
   * The position `cursor` continues after.
   * @throws BadRequestException naming `cursor` when this service did not make it (or it was changed), or made it
   *   for another list, another version, another `sort` or another scope, checked in that order.
   */
  decode(cursor: string, sort: Sort, scope: Scope): Position {
    const signed: unknown = this.signer.verify(cursor);
    const payload: CursorPayload = typeof signed === 'object' && signed !== null ? signed : {};
    if (payload.l !== this.format.list) {
      throw invalidCursor('cursor was made for another list: start again from its first page');
    }
    const position = this.positionOf(payload);
    if (position === undefined) {
      throw invalidCursor('cursor is not valid for this version of the service: start again from the first page');
    }
    if (payload.s !== sort) {
      throw invalidCursor(`cursor was made for sort=${String(payload.s)}: use it with that sort`);
    }
    if (payload.f !== this.digest(sort, scope)) throw invalidCursor(this.format.otherScope);
    return position;
  }

  /**
   * A page of the list that `sort` and `scope` select, from `request`'s `offset` (default 0) or after its `cursor`:
   * `fetch` reads it from that window, and `positionOf` gives the position after the page's last item for `nextCursor`.
   * @throws BadRequestException naming `cursor` as {@link decode} does; what `fetch` throws.
   */
  async page<T>(
    request: PageRequest,
    sort: Sort,
    scope: Scope,
    fetch: (window: PageWindow<Position>) => Promise<FetchedPage<T>>,
    positionOf: (item: T) => Position,
  ): Promise<ListPage<T>> {
    const { limit, cursor } = request;
    const after = cursor === undefined ? undefined : this.decode(cursor, sort, scope);
    const offset = after === undefined ? (request.offset ?? PAGING.defaultOffset) : 0;
    const { items, total, totalRelation, more } = await fetch({ limit, offset, after });
    const last = items.at(-1);
    return {
      items,
      total,
      totalRelation,
      offset: after === undefined ? offset : null,
      nextCursor: more && last !== undefined ? this.encode(sort, scope, positionOf(last)) : null,
    };
  }

  /** The position a payload of this version holds, or undefined when its sort or key does not fit. */
  private positionOf({ v, s, k }: CursorPayload): Position | undefined {
    const { version, sorts } = this.format;
    if (v !== version || !(sorts as readonly unknown[]).includes(s) || !Array.isArray(k)) return undefined;
    return this.format.position(k, s as Sort);
  }

  private digest(sort: Sort, scope: Scope): string {
    return queryDigest(this.format.scope(scope, sort));
  }
}

import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { createHash, createHmac, createSecretKey, KeyObject, timingSafeEqual } from 'node:crypto';
import { cursorConfig } from '../config/cursor.config';
import { BLOG_SORTS, BlogFilters, BlogListPosition, BlogSort, sortOrder } from './blog-list';

/** A cursor: base64url payload, `.`, base64url HMAC-SHA256 of the payload text (43 characters). */
export const CURSOR_SYNTAX = /^[A-Za-z0-9_-]{1,2000}\.[A-Za-z0-9_-]{43}$/;

/** Version of the payload; a cursor of another version is refused like any cursor not made here. */
export const CURSOR_VERSION = 1;

/** What a cursor carries: version, sort, the last blog's sort value (ms for instants) and id, and the filters' digest. */
interface CursorPayload {
  readonly v: number;
  readonly s: BlogSort;
  readonly k: readonly (number | string)[];
  readonly f: string;
}

/**
 * Keyset cursors of the list (docs/architecture.md, "Cursors"): opaque, signed with the `cursor`
 * namespace's key, bound to the sort and the filters of the list they continue.
 */
@Injectable()
export class BlogListCursors {
  /** A `KeyObject`: HMAC with a `Buffer` key builds one per call, 8× the cost of the MAC (docs/performance.md). */
  private readonly key: KeyObject;

  constructor(@Inject(cursorConfig.KEY) config: ConfigType<typeof cursorConfig>) {
    this.key = createSecretKey(config.key);
  }

  /** The cursor of the page after `position` in the list that `filters` and `sort` select. */
  encode(sort: BlogSort, filters: BlogFilters, position: BlogListPosition): string {
    const { value } = position;
    const key = value === undefined ? [position.id] : [value instanceof Date ? value.getTime() : value, position.id];
    const payload: CursorPayload = { v: CURSOR_VERSION, s: sort, k: key, f: filterDigest(sort, filters) };
    const text = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    return `${text}.${this.mac(text)}`;
  }

  /**
   * The position `cursor` continues after.
   * @throws BadRequestException naming `cursor` when this service did not make it (or it was changed), or
   *   made it for another `sort` or other filters.
   */
  decode(cursor: string, sort: BlogSort, filters: BlogFilters): BlogListPosition {
    const [text, mac] = cursor.split('.');
    const expected = CURSOR_SYNTAX.test(cursor) ? this.mac(text) : '';
    // Compared as text, so that no second spelling of the same MAC bytes passes.
    if (expected === '' || !timingSafeEqual(Buffer.from(mac), Buffer.from(expected))) {
      throw new BadRequestException(['cursor is not a nextCursor of this service, or it was changed']);
    }
    const payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as CursorPayload;
    const position = payload.v === CURSOR_VERSION ? positionOf(payload) : undefined;
    if (position === undefined)
      throw new BadRequestException([
        'cursor is not valid for this version of the service: start again from the first page',
      ]);
    if (payload.s !== sort) {
      throw new BadRequestException([`cursor was made for sort=${payload.s}: use it with that sort`]);
    }
    if (payload.f !== filterDigest(sort, filters)) {
      throw new BadRequestException([
        'cursor was made for other filters: use it with the same author, q, createdAfter, createdBefore and updatedAfter',
      ]);
    }
    return position;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}

/** 128 bits of SHA-256 over the filters as the query compares them (instants in ms) and the sort. */
function filterDigest(sort: BlogSort, filters: BlogFilters): string {
  const { author, q, createdAfter, createdBefore, updatedAfter } = filters;
  const canonical = [author, q, createdAfter?.getTime(), createdBefore?.getTime(), updatedAfter?.getTime(), sort];
  return createHash('sha256')
    .update(JSON.stringify(canonical.map((value) => value ?? null)))
    .digest()
    .subarray(0, 16)
    .toString('base64url');
}

/** The position a signed payload holds, or undefined when its shape does not fit its sort. */
function positionOf(payload: CursorPayload): BlogListPosition | undefined {
  const key: unknown = payload.k;
  if (!(BLOG_SORTS as readonly string[]).includes(payload.s) || !Array.isArray(key)) return undefined;
  const { field } = sortOrder(payload.s);
  const [first, second] = key as unknown[];
  if (field === 'id') return key.length === 1 && isId(first) ? { id: first } : undefined;
  if (key.length !== 2 || !isId(second)) return undefined;
  if (field === 'title') return typeof first === 'string' ? { id: second, value: first } : undefined;
  return Number.isSafeInteger(first) ? { id: second, value: new Date(first as number) } : undefined;
}

const isId = (value: unknown): value is number => Number.isSafeInteger(value);

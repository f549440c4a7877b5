import { BadRequestException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createHmac } from 'node:crypto';
import { cursorConfig, loadCursorConfig } from '../config/cursor.config';
import { BlogListPosition, BlogSort } from './blog-list';
import { CURSOR_SYNTAX, CursorSigner } from '../common/paging/cursor-signer';
import { BlogListCursors, BlogListSelection } from './blog-list-cursor';

const KEY = 'cursor-test-key-0123456789abcdefghij';

async function cursorsWith(secret: string): Promise<BlogListCursors> {
  const moduleRef = await Test.createTestingModule({
    providers: [
      BlogListCursors,
      CursorSigner,
      { provide: cursorConfig.KEY, useValue: loadCursorConfig({ CURSOR_SECRET: secret }) },
    ],
  }).compile();
  return moduleRef.get(BlogListCursors);
}

/** The messages of the BadRequestException `decode` throws; fails when it does not throw one. */
function rejectionOf(decode: () => unknown): string[] {
  let error: unknown;
  try {
    decode();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(BadRequestException);
  return ((error as BadRequestException).getResponse() as { message: string[] }).message;
}

const at = new Date('2026-11-22T10:00:00.123Z');
const filters: BlogListSelection = {
  status: 'published',
  author: 'Alice',
  q: 'hello -draft',
  createdAfter: new Date('2026-01-01T00:00:00.000Z'),
  createdBefore: new Date('2027-01-01T00:00:00.000Z'),
  updatedAfter: new Date('2026-06-01T00:00:00.000Z'),
};

/** The selection of the plain list. */
const NONE: BlogListSelection = { status: 'published' };

describe('BlogListCursors', () => {
  let cursors: BlogListCursors;

  beforeAll(async () => {
    cursors = await cursorsWith(KEY);
  });

  it.each<[BlogSort, BlogListPosition]>([
    ['-createdAt', { id: 17, value: at }],
    ['createdAt', { id: 1, value: new Date('0001-01-01T00:00:00.000Z') }],
    ['-updatedAt', { id: 2147483647, value: new Date('9999-12-31T23:59:59.999Z') }],
    ['updatedAt', { id: 5, value: at }],
    ['title', { id: 3, value: 'Ünïcödé "quoted" \\ 😀 \u0001' }],
    ['-title', { id: 4, value: 'x'.repeat(200) }],
    ['id', { id: 9 }],
    ['-id', { id: 1 }],
    ['publishedAt', { id: 6, value: at }],
    ['-publishedAt', { id: 7, value: null }],
  ])('sort %s: decode gives back the position encode was given', (sort, position) => {
    const cursor = cursors.encode(sort, filters, position);

    expect(cursor).toMatch(CURSOR_SYNTAX);
    expect(cursors.decode(cursor, sort, filters)).toEqual(position);
    expect(cursors.decode(cursor, sort, { ...filters })).toEqual(position);
  });

  it.each<[BlogSort, BlogListSelection, BlogListPosition, string]>([
    [
      '-createdAt',
      NONE,
      { id: 4, value: new Date(1795536688280) },
      'eyJ2IjoxLCJzIjoiLWNyZWF0ZWRBdCIsImsiOlsxNzk1NTM2Njg4MjgwLDRdLCJmIjoiSG94elhTUXEwOC1BVUc4OE9qT3NVdyJ9.yWPj2rrbx02Ft6MUwCUJG_pDOPJLW5TBBqYJXnLUuIc',
    ],
    [
      'title',
      { ...filters, status: 'any', tag: ['b', 'a'] },
      { id: 3, value: 'Hello' },
      'eyJ2IjoxLCJzIjoidGl0bGUiLCJrIjpbIkhlbGxvIiwzXSwiZiI6Im9rMUlkT1ZtOUhvMWpNdlNrYTBsOVEifQ.8_WfeN1fbib75_Hs05gsJoH0VhhHq4v7LRM4CZgjRqQ',
    ],
    [
      '-publishedAt',
      NONE,
      { id: 7, value: null },
      'eyJ2IjoxLCJzIjoiLXB1Ymxpc2hlZEF0IiwiayI6W251bGwsN10sImYiOiJESlJmTm1jX2RfWVlSX2JQQTBXYVNRIn0.loSa5ZudC-v1_3Yf1ijaaORKlxpMlB3H1orolEZD92Q',
    ],
  ])(
    'makes the same cursor as ever for sort %s (cursors already sent stay valid)',
    (sort, selection, position, cursor) => {
      expect(cursors.encode(sort, selection, position)).toBe(cursor);
      expect(cursors.decode(cursor, sort, selection)).toEqual(position);
    },
  );

  it('binds the tags as a set: their order does not matter', () => {
    const cursor = cursors.encode('-id', { ...filters, tag: ['a', 'b'] }, { id: 3 });

    expect(cursors.decode(cursor, '-id', { ...filters, tag: ['b', 'a'] })).toEqual({ id: 3 });
  });

  it('stays within the syntax the query accepts for the longest title of escaped characters', () => {
    const cursor = cursors.encode('-title', filters, { id: 2147483647, value: '\u0001"'.repeat(100) });

    expect(cursor).toMatch(CURSOR_SYNTAX);
  });

  it('binds instants to the millisecond: the same instants written otherwise still match', () => {
    const cursor = cursors.encode('-createdAt', filters, { id: 1, value: at });

    const same = { ...filters, createdAfter: new Date(filters.createdAfter?.getTime() ?? 0) };
    expect(cursors.decode(cursor, '-createdAt', same)).toEqual({ id: 1, value: at });
  });

  it.each<[string, BlogListSelection]>([
    ['another author', { ...filters, author: 'alice' }],
    ['no author', { ...filters, author: undefined }],
    ['another q', { ...filters, q: 'hello' }],
    ['another createdAfter', { ...filters, createdAfter: new Date('2026-01-01T00:00:00.001Z') }],
    ['another createdBefore', { ...filters, createdBefore: undefined }],
    ['another updatedAfter', { ...filters, updatedAfter: new Date(0) }],
    ['another status', { ...filters, status: 'any' }],
    ['a tag', { ...filters, tag: ['nestjs'] }],
    [
      'a filter moved to another',
      { ...filters, createdAfter: filters.updatedAfter, updatedAfter: filters.createdAfter },
    ],
  ])('refuses a cursor used with %s, naming cursor', (_name, other) => {
    const cursor = cursors.encode('-createdAt', filters, { id: 1, value: at });

    expect(rejectionOf(() => cursors.decode(cursor, '-createdAt', other))).toEqual([
      'cursor was made for other filters: use it with the same author, q, createdAfter, createdBefore, updatedAfter, tag and status',
    ]);
  });

  it.each<BlogSort>(['createdAt', '-updatedAt', 'title', '-id'])(
    'refuses a -createdAt cursor used with sort=%s, naming the sort it was made for',
    (sort) => {
      const cursor = cursors.encode('-createdAt', NONE, { id: 1, value: at });

      expect(rejectionOf(() => cursors.decode(cursor, sort, NONE))).toEqual([
        'cursor was made for sort=-createdAt: use it with that sort',
      ]);
    },
  );

  it('refuses every cursor with one character changed', () => {
    const cursor = cursors.encode('title', filters, { id: 3, value: 'Hello' });
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i += 1) {
      if (cursor[i] === '.') continue;
      const changed = alphabet[(alphabet.indexOf(cursor[i]) + 1) % alphabet.length];
      const tampered = `${cursor.slice(0, i)}${changed}${cursor.slice(i + 1)}`;
      expect({ i, messages: rejectionOf(() => cursors.decode(tampered, 'title', filters)) }).toEqual({
        i,
        messages: ['cursor is not a nextCursor of this service, or it was changed'],
      });
    }
  });

  it("refuses another service's cursor (another key)", async () => {
    const other = await cursorsWith('another-key-0123456789abcdefghijklmn');
    const cursor = other.encode('-createdAt', NONE, { id: 1, value: at });

    expect(rejectionOf(() => cursors.decode(cursor, '-createdAt', NONE))).toEqual([
      'cursor is not a nextCursor of this service, or it was changed',
    ]);
  });

  it('refuses a payload changed and signed again with a key of its own (here the empty one)', () => {
    const cursor = cursors.encode('-id', NONE, { id: 50 });
    const payload = JSON.parse(Buffer.from(cursor.split('.')[0], 'base64url').toString()) as { k: number[] };
    const forged = Buffer.from(JSON.stringify({ ...payload, k: [5] })).toString('base64url');
    const mac = createHmac('sha256', '').update(forged).digest('base64url');

    expect(() => cursors.decode(`${forged}.${mac}`, '-id', NONE)).toThrow(BadRequestException);
  });

  it.each(['', 'garbage', '.', 'a.b', `${'A'.repeat(10)}.${'A'.repeat(42)}`, `${'A'.repeat(2001)}.${'A'.repeat(43)}`])(
    'refuses the malformed cursor %p',
    (cursor) => {
      expect(rejectionOf(() => cursors.decode(cursor, '-createdAt', NONE))).toEqual([
        'cursor is not a nextCursor of this service, or it was changed',
      ]);
    },
  );

  it.each<[string, object]>([
    ['another version', { v: 2, s: '-id', k: [1] }],
    ['a key without id', { v: 1, s: '-createdAt', k: [1] }],
    ['a title key that is no string', { v: 1, s: 'title', k: [5, 1] }],
    ['an instant key that is no integer', { v: 1, s: 'createdAt', k: ['2026-01-01', 1] }],
    ['an unknown sort', { v: 1, s: 'author', k: ['a', 1] }],
    ['a key that is no list', { v: 1, s: '-id', k: 1 }],
  ])('refuses a signed payload with %s', (_name, payload) => {
    const text = Buffer.from(JSON.stringify({ ...payload, f: 'x' })).toString('base64url');
    const mac = createHmac('sha256', KEY).update(text).digest('base64url');

    expect(rejectionOf(() => cursors.decode(`${text}.${mac}`, '-id', NONE))).toEqual([
      'cursor is not valid for this version of the service: start again from the first page',
    ]);
  });
});

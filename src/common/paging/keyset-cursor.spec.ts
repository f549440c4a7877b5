import { BadRequestException } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { loadCursorConfig } from '../../config/cursor.config';
import { CURSOR_SYNTAX, CursorSigner } from './cursor-signer';
import { INSTANT_THEN_ID, KeysetCursorFormat, KeysetCursors, KeysetPosition } from './keyset-cursor';

const KEY = 'keyset-test-key-0123456789abcdefghijkl';
const signer = new CursorSigner(loadCursorConfig({ CURSOR_SECRET: KEY }));

type Position = KeysetPosition<Date>;

/** A list as comments have it: oldest first, bound to the parent's id. */
const listOf = (list: string | undefined, version = 1): KeysetCursors<'createdAt', Position, number> =>
  new KeysetCursors(signer, {
    ...INSTANT_THEN_ID,
    list,
    version,
    sorts: ['createdAt'],
    scope: (blogId: number) => [blogId],
    otherScope: "cursor was made for another blog's comments: use it with the blog it came from",
  } satisfies KeysetCursorFormat<'createdAt', Position, number>);

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

/** `payload` signed with the test key, as if this service had made it. */
const signed = (payload: unknown): string => {
  const text = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${text}.${createHmac('sha256', KEY).update(text).digest('base64url')}`;
};

const comments = listOf('comments');
const at = new Date('2026-11-28T04:00:00.123Z');
const position: Position = { id: 41, value: at };

describe('KeysetCursors', () => {
  it('gives back the position it was given, for the same list and scope', () => {
    const cursor = comments.encode('createdAt', 7, position);

    expect(cursor).toMatch(CURSOR_SYNTAX);
    expect(comments.decode(cursor, 'createdAt', 7)).toEqual(position);
  });

  it('carries the list name, the version, the sort, the key (ms, id) and a digest of the scope', () => {
    const payload: unknown = JSON.parse(
      Buffer.from(comments.encode('createdAt', 7, position).split('.')[0], 'base64url').toString(),
    );

    expect(payload).toEqual({ l: 'comments', v: 1, s: 'createdAt', k: [at.getTime(), 41], f: expect.any(String) });
  });

  it('refuses every cursor with one character changed', () => {
    const cursor = comments.encode('createdAt', 7, position);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i += 1) {
      if (cursor[i] === '.') continue;
      const changed = alphabet[(alphabet.indexOf(cursor[i]) + 1) % alphabet.length];
      const tampered = `${cursor.slice(0, i)}${changed}${cursor.slice(i + 1)}`;
      expect({ i, messages: rejectionOf(() => comments.decode(tampered, 'createdAt', 7)) }).toEqual({
        i,
        messages: ['cursor is not a nextCursor of this service, or it was changed'],
      });
    }
  });

  it.each<[string, string | undefined, string | undefined]>([
    ['another named list of the same shape', 'notes', 'comments'],
    ['a list without a name (the blog list)', undefined, 'comments'],
    ['a named list, in a list without a name', 'comments', undefined],
  ])("refuses %s's cursor, though its scope digest is the same", (_name, from, to) => {
    const cursor = listOf(from).encode('createdAt', 7, position);

    expect(rejectionOf(() => listOf(to).decode(cursor, 'createdAt', 7))).toEqual([
      'cursor was made for another list: start again from its first page',
    ]);
  });

  it("refuses a cursor of another scope (another blog's comments)", () => {
    const cursor = comments.encode('createdAt', 7, position);

    expect(rejectionOf(() => comments.decode(cursor, 'createdAt', 8))).toEqual([
      "cursor was made for another blog's comments: use it with the blog it came from",
    ]);
  });

  it('refuses a cursor made for another sort, naming it', () => {
    const cursor = signed({ l: 'comments', v: 1, s: 'createdAt', k: [1, 2], f: 'x' });
    const twoSorts = new KeysetCursors<'createdAt' | 'id', Position, number>(signer, {
      ...INSTANT_THEN_ID,
      list: 'comments',
      version: 1,
      sorts: ['createdAt', 'id'],
      scope: (blogId) => [blogId],
      otherScope: 'other',
    });

    expect(rejectionOf(() => twoSorts.decode(cursor, 'id', 7))).toEqual([
      'cursor was made for sort=createdAt: use it with that sort',
    ]);
  });

  it.each<[string, unknown]>([
    ['another version', { l: 'comments', v: 2, s: 'createdAt', k: [1, 2], f: 'x' }],
    ['an unknown sort', { l: 'comments', v: 1, s: '-createdAt', k: [1, 2], f: 'x' }],
    ['a key without id', { l: 'comments', v: 1, s: 'createdAt', k: [1], f: 'x' }],
    ['an instant that is no integer', { l: 'comments', v: 1, s: 'createdAt', k: ['2026-01-01', 2], f: 'x' }],
    ['an id that is no integer', { l: 'comments', v: 1, s: 'createdAt', k: [1, 2.5], f: 'x' }],
    ['a key that is no list', { l: 'comments', v: 1, s: 'createdAt', k: 1, f: 'x' }],
  ])('refuses a signed payload with %s as of another version', (_name, payload) => {
    expect(rejectionOf(() => comments.decode(signed(payload), 'createdAt', 7))).toEqual([
      'cursor is not valid for this version of the service: start again from the first page',
    ]);
  });

  it.each([[null], [5], ['text'], [[1, 2]]])('refuses the signed payload %p with a 400, not a TypeError', (payload) => {
    expect(rejectionOf(() => listOf(undefined).decode(signed(payload), 'createdAt', 7))).toEqual([
      'cursor is not valid for this version of the service: start again from the first page',
    ]);
  });

  it('refuses a cursor of another version of the same list', () => {
    const cursor = listOf('comments', 2).encode('createdAt', 7, position);

    expect(rejectionOf(() => comments.decode(cursor, 'createdAt', 7))).toEqual([
      'cursor is not valid for this version of the service: start again from the first page',
    ]);
  });
});

describe('KeysetCursors.page', () => {
  const cursors = listOf('notes');
  const at = (id: number): { id: number; createdAt: Date } => ({ id, createdAt: new Date(Date.UTC(2026, 0, id)) });
  const positionOf = (item: { id: number; createdAt: Date }): Position => ({ id: item.id, value: item.createdAt });

  it('reads from the offset (0 by default) and makes the next cursor from the last item when more follow', async () => {
    const fetch = jest.fn().mockResolvedValue({ items: [at(1), at(2)], total: 5, more: true });

    const page = await cursors.page({ limit: 2 }, 'createdAt', 7, fetch, positionOf);

    expect(fetch).toHaveBeenCalledWith({ limit: 2, offset: 0, after: undefined });
    expect(page).toMatchObject({ items: [at(1), at(2)], total: 5, offset: 0 });
    expect(cursors.decode(page.nextCursor!, 'createdAt', 7)).toEqual(positionOf(at(2)));
  });

  it('continues after a cursor, with a null offset, and has no next cursor on the last page', async () => {
    const cursor = cursors.encode('createdAt', 7, positionOf(at(2)));
    const fetch = jest.fn().mockResolvedValue({ items: [at(3)], total: 3, totalRelation: 'eq', more: false });

    const page = await cursors.page({ limit: 2, cursor }, 'createdAt', 7, fetch, positionOf);

    expect(fetch).toHaveBeenCalledWith({ limit: 2, offset: 0, after: positionOf(at(2)) });
    expect(page).toEqual({ items: [at(3)], total: 3, totalRelation: 'eq', offset: null, nextCursor: null });
  });

  it('refuses a cursor of another scope before reading', async () => {
    const fetch = jest.fn();

    await expect(
      cursors.page(
        { limit: 2, cursor: cursors.encode('createdAt', 8, positionOf(at(2))) },
        'createdAt',
        7,
        fetch,
        positionOf,
      ),
    ).rejects.toThrow(BadRequestException);
    expect(fetch).not.toHaveBeenCalled();
  });
});

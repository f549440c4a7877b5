/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { BlogBody, BLOGS, createBlog } from './support/blog-api';
import {
  expectRejected,
  ListAnswer,
  listBlogs,
  listQuery,
  nextLinkTarget,
  orderOf,
  seedBlogs,
  SeedBlog,
} from './support/blog-list';
import { useTestApp, useTestDatabase } from './support/test-app';

// End-to-end checks of the list's orders and keyset paging: every sort with ties, cursor walks
// (also while blogs are being created), the Link header, and cursors that must be refused. The
// expected orders are computed here from the stored blogs.

const SORTS = ['createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'title', '-title', 'id', '-id'] as const;

/** Titles with ties, letter case, accents, and code points whose UTF-16 order differs from code-point order. */
const TITLES = ['b', 'B', 'a', 'é', 'e', 'Z', 'a', '😀', '\uFFFD', 'ab', 'a b', 'B', 'É', 'z', '10', '9', 'a', 'Ω'];

/** 18 blogs: four creation instants and three update instants shared among them, and the titles above. */
const BLOGS_WITH_TIES: readonly SeedBlog[] = TITLES.map((title, i) => ({
  title,
  author: i % 2 === 0 ? 'Alice' : 'Bob',
  createdAt: new Date(Date.parse('2025-01-01T00:00:00.000Z') + (i % 4) * 1000).toISOString(),
  updatedAt: new Date(Date.parse('2025-02-01T00:00:00.000Z') + ((i * 7) % 3) * 1).toISOString(),
}));

/** A walk: the ids of every page, the envelopes, and the Link of each page. */
interface Walk {
  readonly ids: number[];
  readonly pages: { total: number; offset: number | null; nextCursor: string | null; link: string | undefined }[];
}

describe('blogs: list orders, cursors and Link (e2e)', () => {
  const database = useTestDatabase();
  /** A cursor of the first app, tried on the apps that follow it. */
  let handedOut: { cursor: string; rest: number[] };

  describe('one app', () => {
    const t = useTestApp({}, { database });

    /** Follows `nextCursor` from the first page of `params` until it is null; `between` runs before each next page. */
    async function walk(
      params: Record<string, string | number>,
      between: () => Promise<unknown> = async () => undefined,
    ): Promise<Walk> {
      const result: Walk = { ids: [], pages: [] };
      let cursor: string | null = null;
      do {
        const query: Record<string, string | number> = cursor === null ? params : { ...params, cursor };
        const [{ body, link }]: [ListAnswer, unknown] = await Promise.all([
          listBlogs(t, query),
          cursor === null ? undefined : between(),
        ]);
        result.ids.push(...body.data.map((blog) => blog.id));
        result.pages.push({ total: body.total, offset: body.offset, nextCursor: body.nextCursor, link });
        cursor = body.nextCursor;
        expect(result.pages.length).toBeLessThan(200);
      } while (cursor !== null);
      return result;
    }

    describe('every sort, with ties broken by id in the same direction', () => {
      let stored: BlogBody[];

      beforeAll(async () => {
        stored = await seedBlogs(t, BLOGS_WITH_TIES);
      });

      it('the data has ties on each sorted field, and code points ordered unlike UTF-16 units', () => {
        for (const field of ['createdAt', 'updatedAt', 'title'] as const) {
          expect(new Set(stored.map((blog) => blog[field])).size).toBeLessThan(stored.length);
        }
        expect('😀' < '\uFFFD').toBe(true);
        expect(orderOf(stored, 'title').indexOf(stored[8].id)).toBeLessThan(
          orderOf(stored, 'title').indexOf(stored[7].id),
        );
      });

      it.each(SORTS)('sort=%s: one page of all blogs is in that order', async (sort) => {
        const { body } = await listBlogs(t, { sort, limit: 100 });

        expect(body.data.map((blog) => blog.id)).toEqual(orderOf(stored, sort));
        expect(body).toMatchObject({ total: stored.length, offset: 0, nextCursor: null });
      });

      it.each(SORTS.flatMap((sort) => [1, 4, 7].map((limit) => [sort, limit] as const)))(
        'sort=%s, limit %i: the cursor walk visits every blog once, in order',
        async (sort, limit) => {
          const { ids, pages } = await walk({ sort, limit });

          expect(ids).toEqual(orderOf(stored, sort));
          expect(pages).toHaveLength(Math.ceil(stored.length / limit));
          expect(pages.map((page) => page.total)).toEqual(pages.map(() => stored.length));
          expect(pages.map((page) => page.offset)).toEqual([0, ...pages.slice(1).map(() => null)]);
          expect(pages.map((page) => page.link === undefined)).toEqual(pages.map((page) => page.nextCursor === null));
          expect(pages.at(-1)?.nextCursor).toBeNull();
        },
      );

      it('filters and sort together: a walk of the Alice blogs by title', async () => {
        const alice = stored.filter((blog) => blog.author === 'Alice');
        const { ids, pages } = await walk({ author: 'Alice', sort: '-title', limit: 2 });

        expect(ids).toEqual(orderOf(alice, '-title'));
        expect(pages.every((page) => page.total === alice.length)).toBe(true);
      });

      it('limit and fields may change between pages', async () => {
        const first = await listBlogs(t, { sort: 'updatedAt', limit: 3, fields: 'id' });
        const second = await listBlogs(t, {
          sort: 'updatedAt',
          limit: 5,
          fields: 'id,title',
          cursor: first.body.nextCursor ?? '',
        });

        const expected = orderOf(stored, 'updatedAt');
        expect(first.body.data).toEqual(expected.slice(0, 3).map((id) => ({ id })));
        expect(second.body.data.map((blog) => blog.id)).toEqual(expected.slice(3, 8));
        expect(Object.keys(second.body.data[0]).sort()).toEqual(['id', 'title']);
      });

      it('a page asked for by offset hands out a cursor that continues after it', async () => {
        const first = await listBlogs(t, { sort: 'title', offset: 5, limit: 4 });
        const rest = await listBlogs(t, { sort: 'title', limit: 100, cursor: first.body.nextCursor ?? '' });

        expect([...first.body.data, ...rest.body.data].map((blog) => blog.id)).toEqual(
          orderOf(stored, 'title').slice(5),
        );
        expect(rest.body).toMatchObject({ offset: null, nextCursor: null });
      });

      it('the default list (newest first, by offset) hands out cursors too, up to its last page', async () => {
        const expected = orderOf(stored, '-createdAt');
        const first = await listBlogs(t, { limit: 10 });
        const last = await listBlogs(t, { limit: 10, cursor: first.body.nextCursor ?? '' });
        const lastByOffset = await listBlogs(t, { limit: 10, offset: 10 });

        expect(first.body.data.map((blog) => blog.id)).toEqual(expected.slice(0, 10));
        expect(last.body.data.map((blog) => blog.id)).toEqual(expected.slice(10));
        expect(last.body.nextCursor).toBeNull();
        expect(lastByOffset.body.nextCursor).toBeNull();
        expect(lastByOffset.link).toBeUndefined();
      });

      it('hands its last cursor to the apps that follow', async () => {
        const first = await listBlogs(t, { sort: 'title', author: 'Bob', limit: 2 });
        const bob = orderOf(
          stored.filter((blog) => blog.author === 'Bob'),
          'title',
        );
        expect(first.body.data.map((blog) => blog.id)).toEqual(bob.slice(0, 2));
        handedOut = { cursor: first.body.nextCursor ?? '', rest: bob.slice(2) };
      });
    });

    describe('Link: rel="next" (RFC 8288) with the same parameters, cursor in place of offset', () => {
      beforeAll(async () => {
        await seedBlogs(t, BLOGS_WITH_TIES);
      });

      it('names the next page; following it gives what the cursor gives', async () => {
        const params = { author: 'Alice', q: 'a or b', sort: 'title', fields: 'id,title', limit: 1, offset: 0 };
        const first = await listBlogs(t, params);
        const target = nextLinkTarget(first.link);
        const [path, query] = target.split('?');

        expect(path).toBe(BLOGS);
        const { offset: _offset, ...rest } = params;
        expect(Object.fromEntries(new URLSearchParams(query))).toEqual({
          ...Object.fromEntries(Object.entries(rest).map(([name, value]) => [name, String(value)])),
          cursor: first.body.nextCursor,
        });
        const followed = await listBlogs(t, target);
        const byCursor = await listBlogs(t, { ...rest, cursor: first.body.nextCursor ?? '' });
        expect(followed.body).toEqual(byCursor.body);
        expect(followed.body.data).toHaveLength(1);
        expect(followed.body.data[0]).not.toEqual(first.body.data[0]);
      });

      it('following the links walks the whole list, and the last page has no Link', async () => {
        const expected = (await listBlogs(t, { sort: '-updatedAt', limit: 100 })).body.data.map((blog) => blog.id);
        let answer = await listBlogs(t, { sort: '-updatedAt', limit: 5 });
        const ids = answer.body.data.map((blog) => blog.id);
        while (answer.link !== undefined) {
          answer = await listBlogs(t, nextLinkTarget(answer.link));
          ids.push(...answer.body.data.map((blog) => blog.id));
        }
        expect(ids).toEqual(expected);
        expect(answer.body.nextCursor).toBeNull();
      });

      it.each(['/api/blogs', '/v1/blogs', '/API/V1/BLOGS'])(
        'points to the canonical path from the alias %s',
        async (path) => {
          const { link } = await listBlogs(t, `${path}?limit=2`);

          expect(nextLinkTarget(link)).toMatch(new RegExp(`^${BLOGS}\\?limit=2&cursor=[A-Za-z0-9_.-]+$`));
        },
      );

      it.each([
        ['a page that holds the rest exactly', { limit: 18 }],
        ['an offset past the end', { offset: 100 }],
        ['no match', { author: 'Nobody' }],
        ['a last page', { limit: 10, offset: 10 }],
      ])('is absent on %s, with nextCursor null', async (_name, params) => {
        const { body, link } = await listBlogs(t, params);

        expect({ link, nextCursor: body.nextCursor }).toEqual({ link: undefined, nextCursor: null });
      });
    });

    describe('while blogs are being created: nothing twice, nothing skipped', () => {
      it.each(['-createdAt', 'createdAt', '-id', 'title'])('sort=%s', async (sort) => {
        const before = await seedBlogs(
          t,
          Array.from({ length: 30 }, (_, i) => ({
            title: `seed ${String(i % 10)}`,
            createdAt: new Date(Date.parse('2025-05-01T00:00:00.000Z') + (i % 7) * 1000).toISOString(),
          })),
        );
        const created: number[] = [];
        let round = 0;
        const { ids } = await walk({ sort, limit: 4 }, async () => {
          round += 1;
          if (round > 6) return;
          const made = await Promise.all(
            [1, 2, 3].map((i) => createBlog(t, 'writer', { title: `seed ${i} new ${round}` })),
          );
          created.push(...made.map((res) => res.body.id as number));
        });

        expect(created).toHaveLength(18);
        expect(new Set(ids).size).toBe(ids.length);
        const seen = new Set(ids);
        expect(before.filter((blog) => !seen.has(blog.id)).map((blog) => blog.id)).toEqual([]);
        expect(ids.filter((id) => !created.includes(id) && !before.some((blog) => blog.id === id))).toEqual([]);
      });
    });

    describe('cursors that are refused: 400 naming cursor', () => {
      let stored: BlogBody[];
      let cursor: string;
      const params = { author: 'Alice', sort: 'title', limit: 2 };

      beforeAll(async () => {
        stored = await seedBlogs(t, BLOGS_WITH_TIES);
        cursor = (await listBlogs(t, params)).body.nextCursor ?? '';
      });

      it('the cursor itself is accepted with the same filters and sort', async () => {
        const { body } = await listBlogs(t, { ...params, cursor });
        expect(body.data.map((blog) => blog.id)).toEqual(
          orderOf(
            stored.filter((blog) => blog.author === 'Alice'),
            'title',
          ).slice(2, 4),
        );
      });

      it('any one character changed', async () => {
        for (const i of [0, 5, cursor.indexOf('.') - 1, cursor.indexOf('.') + 1, cursor.length - 1]) {
          const flipped = `${cursor.slice(0, i)}${cursor[i] === 'A' ? 'B' : 'A'}${cursor.slice(i + 1)}`;
          expectRejected(await t.http.get(`${BLOGS}?${listQuery({ ...params, cursor: flipped })}`), 'cursor');
        }
      });

      it.each<[string, Record<string, string | number>]>([
        ['another author', { ...params, author: 'Bob' }],
        ['no author', { sort: 'title' }],
        ['a search added', { ...params, q: 'a' }],
        ['createdAfter added', { ...params, createdAfter: '2020-01-01T00:00:00Z' }],
        ['createdBefore added', { ...params, createdBefore: '2030-01-01T00:00:00Z' }],
        ['updatedAfter added', { ...params, updatedAfter: '2020-01-01T00:00:00Z' }],
        ['another sort', { ...params, sort: '-title' }],
        ['the default sort', { author: 'Alice' }],
      ])('used with %s', async (_name, other) => {
        expectRejected(await t.http.get(`${BLOGS}?${listQuery({ ...other, cursor })}`), 'cursor');
      });

      it.each([
        ['not base64url', 'cursor=!!!'],
        ['no signature', `cursor=${Buffer.from('{"v":1,"s":"title","k":["a",1]}').toString('base64url')}`],
        [
          'a forged signature',
          `cursor=${Buffer.from('{"v":1,"s":"-id","k":[1]}').toString('base64url')}.${'A'.repeat(43)}`,
        ],
        ['a JWT', `cursor=${'eyJhbGciOiJIUzI1NiJ9.e30.'}${'A'.repeat(43)}`],
      ])('%s', async (_name, query) => {
        expectRejected(await t.http.get(`${BLOGS}?sort=-id&${query}`), 'cursor');
      });

      it('with offset, even offset=0', async () => {
        expectRejected(await t.http.get(`${BLOGS}?${listQuery({ ...params, cursor, offset: 0 })}`), 'cursor');
      });
    });
  });

  describe('a second app with the same JWT_SECRET (a replica, or after a restart)', () => {
    const t = useTestApp({}, { database });

    it("accepts the first app's cursor: the key is derived from the shared secret", async () => {
      const { body } = await listBlogs(t, { sort: 'title', author: 'Bob', limit: 100, cursor: handedOut.cursor });
      expect(body.data.map((blog) => blog.id)).toEqual(handedOut.rest);
    });
  });

  describe('an app with another CURSOR_SECRET', () => {
    const t = useTestApp({ CURSOR_SECRET: 'another-cursor-secret-0123456789abcdef' }, { database });

    it('refuses the cursors of the others', async () => {
      const res = await t.http.get(`${BLOGS}?${listQuery({ sort: 'title', author: 'Bob', cursor: handedOut.cursor })}`);
      expectRejected(res, 'cursor');
    });
  });
});

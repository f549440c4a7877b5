/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Response } from 'supertest';
import {
  BlogBody,
  BlogListBody,
  BLOG_FIELDS,
  BLOGS,
  countBlogs,
  createBlog,
  expectJsonError,
  INT4_MAX,
  ISO_UTC_MS,
  messagesOf,
} from './support/blog-api';
import { useTestApp } from './support/test-app';

// End-to-end checks of the list operation: defaults, envelope, order, exact total, bounds and the
// strict syntax of `limit` and `offset`.

describe('blogs: list and paging (e2e)', () => {
  const t = useTestApp();

  /** Empties the table, then creates `n` blogs one after another through the API. */
  async function freshBlogs(n: number): Promise<BlogBody[]> {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const created: BlogBody[] = [];
    for (let i = 1; i <= n; i += 1) {
      const res = await createBlog(t, 'alice', { title: `title ${i}`, content: `content ${i}`, author: `author ${i}` });
      created.push(res.body);
    }
    return created;
  }

  /** GET the list with this raw query string and expect 200 with a well-formed envelope. */
  async function list(query = ''): Promise<BlogListBody> {
    const res = await t.http.get(`${BLOGS}${query}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'limit', 'nextCursor', 'offset', 'total', 'totalRelation']);
    expect(Array.isArray(res.body.data)).toBe(true);
    return res.body as BlogListBody;
  }

  /** Ids of the stored blogs, newest first (`created_at` desc, then `id` desc), sorted here in JS. */
  async function expectedOrder(): Promise<number[]> {
    const rows: { id: number | string; created_at: string | Date }[] = await t.dataSource.query(
      'SELECT id, created_at FROM blogs',
    );
    return rows
      .map((r) => ({ id: Number(r.id), at: new Date(r.created_at).getTime() }))
      .sort((a, b) => b.at - a.at || b.id - a.id)
      .map((r) => r.id);
  }

  /** 400 with the JSON error body and, given `naming`, a message that names it. */
  function expectBadRequest(res: Response, naming?: string): void {
    expectJsonError(res, 400);
    if (naming !== undefined) expect(messagesOf(res).some((m) => m.includes(naming))).toBe(true);
  }

  describe('envelope and defaults', () => {
    let created: BlogBody[];

    beforeAll(async () => {
      created = await freshBlogs(25);
    });

    it.each([
      ['without a query: limit 10 and offset 0', '', 10, 0, 10],
      ['the limit and offset given', '?limit=7&offset=3', 7, 3, 7],
      ['limit alone, offset defaulting to 0', '?limit=3', 3, 0, 3],
      ['offset alone, limit defaulting to 10', '?offset=20', 10, 20, 5],
    ])('the envelope says the effective limit and offset, %s', async (_name, query, limit, offset, length) => {
      const body = await list(query);
      expect(body).toMatchObject({ limit, offset, total: 25 });
      expect(body.data).toHaveLength(length);
    });

    it('returns list items with all six fields, equal to what read returns', async () => {
      const body = await list('?limit=100');
      expect(body.data).toHaveLength(25);
      for (const item of body.data) {
        expect(Object.keys(item).sort()).toEqual(BLOG_FIELDS);
        expect(Number.isInteger(item.id)).toBe(true);
        expect(item.createdAt).toMatch(ISO_UTC_MS);
        expect(item.updatedAt).toMatch(ISO_UTC_MS);
        const read = await t.http.get(`${BLOGS}/${item.id}`);
        expect(read.status).toBe(200);
        expect(item).toEqual(read.body);
      }
      expect([...body.data].sort((a, b) => a.id - b.id)).toEqual(created);
    });

    it('has an exact total equal to the number of stored blogs, which follows new creates', async () => {
      expect((await list()).total).toBe(await countBlogs(t));
      await createBlog(t, 'alice', { title: 'one more', content: 'c', author: 'a' });
      const body = await list('?offset=5&limit=1');
      expect(body.total).toBe(26);
      expect(body.total).toBe(await countBlogs(t));
    });
  });

  describe('order: newest first, createdAt descending then id descending', () => {
    it('lists blogs created one after another newest first (ids descending)', async () => {
      const created = await freshBlogs(12);
      const body = await list('?limit=100');
      expect(body.data.map((b) => b.id)).toEqual(created.map((b) => b.id).reverse());
    });

    it('orders by createdAt first, whatever the ids, and breaks ties on createdAt by id descending', async () => {
      await freshBlogs(15);
      // Creation times that disagree with the ids, with ties: blog i at 2030-01-01 + ((i * 7) mod 5) minutes.
      await t.dataSource.query(
        `UPDATE blogs SET created_at = timestamptz '2030-01-01T00:00:00.000Z' + ((id * 7) % 5) * interval '1 minute'`,
      );
      const expected = await expectedOrder();
      // Sanity: this order is neither id ascending nor id descending.
      const byIdDesc = [...expected].sort((a, b) => b - a);
      expect(expected).not.toEqual(byIdDesc);
      expect(expected).not.toEqual([...byIdDesc].reverse());

      const body = await list('?limit=100');
      expect(body.data.map((b) => b.id)).toEqual(expected);
      // Within one createdAt, ids descend; across, createdAt descends. The data has ties to check.
      let ties = 0;
      for (let i = 1; i < body.data.length; i += 1) {
        const [prev, cur] = [body.data[i - 1], body.data[i]];
        const prevAt = Date.parse(prev.createdAt);
        const curAt = Date.parse(cur.createdAt);
        expect(curAt).toBeLessThanOrEqual(prevAt);
        if (curAt === prevAt) {
          ties += 1;
          expect(cur.id).toBeLessThan(prev.id);
        }
      }
      expect(ties).toBeGreaterThan(0);
      expect(body.data[0].createdAt).toBe('2030-01-01T00:04:00.000Z');
    });

    it('walks consecutive pages without overlap or gap, matching one full page', async () => {
      await freshBlogs(23);
      // Some ties on createdAt, so stability depends on the id tiebreak.
      await t.dataSource.query(
        `UPDATE blogs SET created_at = timestamptz '2030-06-01T00:00:00.000Z' + ((id / 4) * interval '1 second')`,
      );
      const expected = await expectedOrder();
      const full = await list('?limit=100');
      expect(full.data.map((b) => b.id)).toEqual(expected);

      for (const pageSize of [1, 4, 5, 10]) {
        const walked: number[] = [];
        for (let offset = 0; offset < 23; offset += pageSize) {
          const page = await list(`?limit=${pageSize}&offset=${offset}`);
          expect(page).toMatchObject({ limit: pageSize, offset, total: 23 });
          expect(page.data).toHaveLength(Math.min(pageSize, 23 - offset));
          walked.push(...page.data.map((b) => b.id));
        }
        expect(new Set(walked).size).toBe(walked.length);
        expect(walked).toEqual(expected);
      }
    });
  });

  describe('every page, from either end of the list', () => {
    // Offsets in the older half are counted from the oldest blog; each page must still be the
    // slice of the one newest-first order, at and around the middle and the end.
    it.each([1, 2, 3, 7, 100])('limit %i: each offset 0…total+1 is the slice of the full order', async (limit) => {
      await freshBlogs(17);
      await t.dataSource.query(
        `UPDATE blogs SET created_at = timestamptz '2030-07-01T00:00:00.000Z' + ((id / 3) * interval '1 second')`,
      );
      const expected = await expectedOrder();
      for (let offset = 0; offset <= 18; offset += 1) {
        const page = await list(`?limit=${limit}&offset=${offset}`);
        expect({ offset, ids: page.data.map((b) => b.id), total: page.total }).toEqual({
          offset,
          ids: expected.slice(offset, offset + limit),
          total: 17,
        });
      }
    });
  });

  describe('offset past the end', () => {
    beforeAll(async () => {
      await freshBlogs(6);
    });

    it.each([6, 7, 1000, INT4_MAX])('offset %i gives data [] with the true total', async (offset) => {
      const body = await list(`?offset=${offset}`);
      expect(body).toEqual({ data: [], total: 6, totalRelation: 'eq', limit: 10, offset, nextCursor: null });
    });

    it('a last, partial page holds the remaining blogs', async () => {
      const body = await list('?offset=4&limit=10');
      expect(body.data).toHaveLength(2);
      expect(body.total).toBe(6);
    });
  });

  describe('bounds of limit and offset', () => {
    beforeAll(async () => {
      await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
      // 120 blogs, so that the largest page is really full.
      await t.dataSource.query(
        `INSERT INTO blogs (title, content, author, owner_sub)
         SELECT 'title ' || n, 'content ' || n, 'author ' || n, 'alice' FROM generate_series(1, 120) AS n`,
      );
    });

    it.each([
      ['limit 1, giving one blog', '?limit=1', 1, 0, 1],
      ['limit 100, giving 100 blogs', '?limit=100', 100, 0, 100],
      ['offset 0', '?offset=0&limit=5', 5, 0, 5],
      ['offset 2147483647, giving none', `?offset=${INT4_MAX}`, 10, INT4_MAX, 0],
    ])('accepts %s', async (_name, query, limit, offset, length) => {
      const body = await list(query);
      expect(body).toMatchObject({ limit, offset, total: 120 });
      expect(body.data).toHaveLength(length);
    });

    it.each(['0', '101', '-1', '1000', '2147483648'])('limit=%s is rejected with 400 naming limit', async (value) => {
      expectBadRequest(await t.http.get(`${BLOGS}?limit=${value}`), 'limit');
    });

    it.each(['-1', '2147483648', '99999999999999999999'])(
      'offset=%s is rejected with 400 naming offset',
      async (value) => {
        expectBadRequest(await t.http.get(`${BLOGS}?offset=${value}`), 'offset');
      },
    );
  });

  describe('syntax of limit and offset: ^(0|[1-9][0-9]*)$ only', () => {
    const nonCanonical: [string, string][] = [
      ['leading zero 01', '01'],
      ['decimal 1.0', '1.0'],
      ['exponent 1e1', '1e1'],
      ['leading space', '%201'],
      ['trailing space', '1%20'],
      ['empty', ''],
      ['plus sign (%2B1)', '%2B1'],
      ['plus sign (raw +1)', '+1'],
      ['hexadecimal 0x1', '0x1'],
      ['letters', 'ten'],
      ['fullwidth digit', '%EF%BC%95'],
    ];

    describe.each(['limit', 'offset'])('%s', (param) => {
      it.each(nonCanonical)(`rejects a value with a %s (${param}=%s) with 400`, async (_label, value) => {
        expectBadRequest(await t.http.get(`${BLOGS}?${param}=${value}`), param);
      });

      it.each([
        ['no value', param],
        ['a repeated parameter', `${param}=1&${param}=2`],
        ['a repeated parameter even with equal values', `${param}=1&${param}=1`],
        ['array syntax', `${param}[]=1`],
        ['object syntax', `${param}[a]=1`],
        ['array syntax with an index', `${param}[0]=1`],
        ['a repeated array', `${param}[]=1&${param}[]=2`],
      ])('rejects %s (?%s) with 400', async (_name, query) => {
        expectBadRequest(await t.http.get(`${BLOGS}?${query}`));
      });
    });

    it.each(['limit', 'offset'])('the message of %s=05 says leading zeros are not allowed', async (param) => {
      const res = await t.http.get(`${BLOGS}?${param}=05`).expect(400);
      expect(res.body.message).toEqual([
        `${param} must be an integer in decimal digits, without sign or leading zeros`,
      ]);
    });

    it.each(['limit', 'offset'])('the message of %s given twice says it is repeated', async (param) => {
      const res = await t.http.get(`${BLOGS}?${param}=1&${param}=2`).expect(400);
      expect(res.body.message).toEqual([`${param} must be given at most once; the query repeats it`]);
    });

    it.each([
      ['a leading zero on zero', '00'],
      ['minus zero', '-0'],
    ])('rejects offset with %s (offset=%s) with 400 naming offset', async (_name, value) => {
      expectBadRequest(await t.http.get(`${BLOGS}?offset=${value}`), 'offset');
    });
  });

  describe('unknown query parameters', () => {
    it.each([
      'page=2',
      'order=id',
      'foo=1',
      'LIMIT=5',
      'Limit=5',
      'limit=5&extra=',
      'search=title',
      'filter[author]=Alice',
      'Sort=id',
      'cursor_=x',
      '__proto__=1',
      'constructor=1',
      'prototype=1',
    ])('rejects ?%s with 400 naming the parameter', async (query) => {
      const name = query.split('&').pop()!.split('=')[0];
      expectBadRequest(await t.http.get(`${BLOGS}?${query}`), name);
    });
  });
});

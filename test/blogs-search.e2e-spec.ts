import type { Response } from 'supertest';
import { bearer, BLOGS, BlogListBody, messagesOf } from './support/blog-api';
import { bulkSeed } from './support/bulk-seed';
import { expectRejected, listBlogs, listQuery } from './support/blog-list';
import { useTestApp } from './support/test-app';
import { E2E_ENV } from './support/test-database';

// The bounds of a search (docs/api.md, "Search"): its expression (terms, repeats), its total (exact up to 10,000
// matches, then `10000` with `totalRelation: "gte"`), and each client's share of the slow lane it waits in. Pages are
// compared with what this file reads from the stored blogs itself.

/** The cap of a search's exact total. */
const CAP = 10_000;

/** Blogs n = 1…CAP + 1: all say `common`, the first CAP `capped`, every 500th `rare`; newer as n grows. */
const SEED = `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
  SELECT 'title ' || md5(n::text), 'common' || CASE WHEN n <= ${CAP} THEN ' capped' ELSE '' END
      || CASE WHEN n % 500 = 0 THEN ' rare' ELSE '' END,
    'Alice', 'seed', timestamptz '2025-01-01T00:00:00Z' + n * interval '1 second',
    timestamptz '2025-01-01T00:00:00Z' + n * interval '1 second'
  FROM generate_series($1::int, $2::int) AS n`;

/** `count` distinct words. */
const words = (count: number): string => Array.from({ length: count }, (_, i) => `w${i}`).join(' ');

describe('blogs: the bounds of a search (e2e)', () => {
  const t = useTestApp({ TRUST_PROXY: 'true', RATE_LIMIT_ENABLED: 'false' });

  beforeAll(async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    await bulkSeed(t.dataSource, CAP + 1, SEED);
  });

  /** The ids of the blogs whose content matches `where`, in `order`, from `offset`, at most `limit`. */
  async function expectedIds(where: string, order: string, limit: number, offset = 0): Promise<number[]> {
    const rows: { id: string | number }[] = await t.dataSource.query(
      `SELECT id FROM blogs WHERE ${where} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset}`,
    );
    return rows.map((row) => Number(row.id));
  }

  describe('the expression: at most 16 words, none twice', () => {
    it.each([
      ['16 distinct words', words(16)],
      ['16 words in a phrase', `"${words(16)}"`],
      ['"or" between words, which is no word', 'common or rare or capped'],
      ['a word and an excluded one', 'common -rare'],
    ])('%s: searched', async (_name, q) => {
      await listBlogs(t, { q, limit: 1 });
    });

    it.each([
      ['17 words', words(17), 'q must contain at most 16 words to search for'],
      ['17 words in a phrase', `"${words(17)}"`, 'q must contain at most 16 words to search for'],
      [
        'one word 99 times, in 199 characters',
        `"${Array(99).fill('a').join(' ')}"`,
        'q must contain at most 16 words to search for',
      ],
      ['one word twice', 'common rare common', 'q must not contain a word to search for more than once'],
      [
        'one word twice, in another letter case',
        'Common COMMON',
        'q must not contain a word to search for more than once',
      ],
      ['a word and the same word excluded', 'rare -rare', 'q must not contain a word to search for more than once'],
      ['a phrase repeating a word', '"a b a"', 'q must not contain a word to search for more than once'],
    ])('%s: 400 naming q', async (_name, q, message) => {
      const res = await t.http.get(`${BLOGS}?${listQuery({ q })}`);
      expectRejected(res, 'q');
      expect(messagesOf(res)).toEqual([message]);
    });
  });

  describe('the total: exact up to 10,000 matches, then 10000 and "gte"', () => {
    it.each([
      ['fewer matches than the cap', 'rare', `content LIKE '% rare%'`, 20, 'eq'],
      ['as many matches as the cap', 'capped', `content LIKE '% capped%'`, CAP, 'eq'],
      ['one past the cap', 'common', 'true', CAP, 'gte'],
      ['a word and an excluded one, under the cap', 'common -rare', `content NOT LIKE '% rare%'`, CAP + 1 - 20, 'eq'],
    ])('%s: q=%p', async (_name, q, where, total, totalRelation) => {
      const { body } = await listBlogs(t, { q, limit: 5 });

      expect({ total: body.total, totalRelation: body.totalRelation }).toEqual({ total, totalRelation });
      expect(body.data.map((blog) => blog.id)).toEqual(await expectedIds(where, 'created_at DESC, id DESC', 5));
    });

    it.each([
      ['a draft', 'NULL'],
      ['a scheduled blog', `now() + interval '1 hour'`],
    ])(
      '%s among the 10,001 matches: 10,000 live, "eq" to anyone, "gte" to their owner with status=any',
      async (_name, at) => {
        const [{ id }] = await t.dataSource.query<{ id: number }[]>(`SELECT max(id) AS id FROM blogs`);
        await t.dataSource.query(`UPDATE blogs SET published_at = ${at} WHERE id = $1`, [id]);
        try {
          const { body } = await listBlogs(t, { q: 'common', limit: 5 });
          const res = await t.http
            .get(`${BLOGS}?${listQuery({ q: 'common', status: 'any', limit: 5 })}`)
            .set('Authorization', bearer(t.token('seed')));

          expect({ total: body.total, totalRelation: body.totalRelation }).toEqual({ total: CAP, totalRelation: 'eq' });
          expect(body.data.map((blog) => blog.id)).toEqual(
            await expectedIds(`id <> ${id}`, 'created_at DESC, id DESC', 5),
          );
          expect({ total: res.body.total, totalRelation: res.body.totalRelation }).toEqual({
            total: CAP,
            totalRelation: 'gte',
          });
        } finally {
          await t.dataSource.query(`UPDATE blogs SET published_at = created_at WHERE id = $1`, [id]);
        }
      },
    );

    it('a list without q counts every blog exactly', async () => {
      const { body } = await listBlogs(t, { author: 'Alice', limit: 1 });
      expect({ total: body.total, totalRelation: body.totalRelation }).toEqual({ total: CAP + 1, totalRelation: 'eq' });
    });

    it.each([
      ['title', 'title COLLATE "C", id'],
      ['-id', 'id DESC'],
      ['updatedAt', 'updated_at, id'],
    ])('past the cap, the page in the order %s, at an offset, is the matches in that order', async (sort, order) => {
      const { body } = await listBlogs(t, { q: 'common', sort, limit: 7, offset: 3 });

      expect(body.totalRelation).toBe('gte');
      expect(body.data.map((blog) => blog.id)).toEqual(await expectedIds('true', order, 7, 3));
    });

    it('past the cap, a cursor walk continues in order, every page saying "gte"', async () => {
      const seen: number[] = [];
      let path = `${BLOGS}?${listQuery({ q: 'common', sort: 'title', limit: 4, fields: 'id' })}`;
      for (let page = 0; page < 3; page += 1) {
        const { body } = await listBlogs(t, path);
        expect(body.totalRelation).toBe('gte');
        seen.push(...body.data.map((blog) => blog.id));
        path = `${BLOGS}?${listQuery({ q: 'common', sort: 'title', limit: 4, fields: 'id', cursor: body.nextCursor ?? '' })}`;
      }

      expect(seen).toEqual(await expectedIds('true', 'title COLLATE "C", id', 12));
    });
  });

  // The embedded database has one connection: the spec's own lock would hold it. Through a replica the reads would not
  // meet the primary's lock.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    "one client's searches wait behind its own in the slow lane, and another client's pass them",
    async () => {
      const search = (client: string, q: string, sort: string, createdBefore?: string): Promise<Response> =>
        t.http
          .get(
            `${BLOGS}?${listQuery({ q, sort, limit: 1, ...(createdBefore === undefined ? {} : { createdBefore }) })}`,
          )
          .set('X-Forwarded-For', client)
          .then((res) => res);
      /** The searches waiting for the spec's lock, by order: `title` is the other client's. */
      const waiting = async (): Promise<{ own: number; other: number }> => {
        const [row] = await t.dataSource.query<{ own: number; other: number }[]>(
          `SELECT count(*) FILTER (WHERE query NOT LIKE '%COLLATE "C"%')::int AS own,
             count(*) FILTER (WHERE query LIKE '%COLLATE "C"%')::int AS other
           FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%"matches"%'`,
        );
        return row;
      };
      const until = async (done: (now: { own: number; other: number }) => boolean): Promise<void> => {
        while (!done(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
      };
      const holder = t.dataSource.createQueryRunner();
      await holder.connect();
      try {
        await holder.startTransaction();
        await holder.query('SET LOCAL idle_in_transaction_session_timeout = 0');
        await holder.query('LOCK TABLE blogs IN ACCESS EXCLUSIVE MODE');
        // Three searches of one client released together: its share of the lane (one of two connections) admits one.
        const own = ['common', 'rare', 'capped'].map((q) => search('198.51.100.1', q, 'id'));
        await until((now) => now.own >= 1);
        // Another key (a bound every blog is within): a search of the same key would wait for its count in flight.
        const other = search('198.51.100.2', 'common', 'title', '2100-01-01T00:00:00Z');
        await until((now) => now.other >= 1);

        expect(await waiting()).toEqual({ own: 1, other: 1 });
        await holder.commitTransaction();
        const answers = await Promise.all([...own, other]);
        expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200]);
        expect(answers.map((res) => (res.body as BlogListBody).total)).toEqual([CAP, 20, CAP, CAP]);
      } finally {
        if (holder.isTransactionActive) await holder.rollbackTransaction();
        await holder.release();
      }
    },
  );
});

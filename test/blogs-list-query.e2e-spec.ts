/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { BlogBody, BLOG_FIELDS, BLOGS, countBlogs, messagesOf } from './support/blog-api';
import { expectRejected, listBlogs, listQuery, orderOf, seedBlogs, SeedBlog } from './support/blog-list';
import { useTestApp } from './support/test-app';

// End-to-end checks of the list's filters, full-text search and sparse fields, and of the
// validation of every list parameter: the totals and pages the API answers are compared with what
// this file computes from the stored blogs itself.

const at = (time: string): string => `2025-03-01T${time}Z`;

const BLOGS_TO_FILTER: readonly SeedBlog[] = [
  {
    title: 'Hello World',
    content: 'The first post about PostgreSQL',
    author: 'Alice',
    createdAt: at('10:00:00.000'),
    updatedAt: at('12:00:00.000'),
  },
  { title: 'hello again', content: 'Draft: second post', author: 'Alice', createdAt: at('10:00:00.001') },
  {
    title: 'World news',
    content: 'Nothing about greetings',
    author: 'Bob',
    createdAt: at('10:00:00.001'),
    updatedAt: at('13:00:00.000'),
  },
  { title: 'Helloworld', content: 'one word only', author: 'alice', createdAt: at('10:00:00.999') },
  { title: 'Postgres tips', content: 'A quick brown fox jumps', author: 'Bob', createdAt: at('10:00:01.000') },
  { title: 'Brown fox', content: 'quick, then jumps', author: 'Carol', createdAt: at('11:00:00.000') },
  { title: 'Ünïcödé', content: 'Straße café', author: 'Ünïcödé Ann', createdAt: at('11:00:00.000') },
  {
    title: 'Numbers 2026',
    content: 'version 15 and 18',
    author: 'Carol',
    createdAt: at('12:00:00.000'),
    updatedAt: at('12:30:00.000'),
  },
];

/** A filter value as sent, and the instant it names in (possibly fractional) milliseconds. */
type Instant = readonly [text: string, ms: number];

describe('blogs: list filters, search and fields (e2e)', () => {
  const t = useTestApp();
  let stored: BlogBody[];
  const idsOf = (titles: readonly string[]): number[] =>
    orderOf(
      stored.filter((blog) => titles.includes(blog.title)),
      '-createdAt',
    );

  beforeAll(async () => {
    stored = await seedBlogs(t, BLOGS_TO_FILTER);
  });

  describe('filters combined with AND, exact totals', () => {
    const authors = [undefined, 'Alice', 'alice', 'Bob', 'Nobody'];
    const createdAfter: (Instant | undefined)[] = [
      undefined,
      [at('10:00:00'), Date.parse(at('10:00:00.000'))],
      [at('10:00:00.0005'), Date.parse(at('10:00:00.000')) + 0.5],
      ['2025-03-01T11:00:00.001+01:00', Date.parse(at('10:00:00.001'))],
    ];
    const createdBefore: (Instant | undefined)[] = [
      undefined,
      [at('10:00:00.001'), Date.parse(at('10:00:00.001'))],
      [at('10:00:00.0005'), Date.parse(at('10:00:00.000')) + 0.5],
      ['2025-03-01T06:00:00-05:00', Date.parse(at('11:00:00.000'))],
    ];
    const updatedAfter: (Instant | undefined)[] = [undefined, [at('12:00:00'), Date.parse(at('12:00:00.000'))]];
    const combinations = authors.flatMap((author) =>
      createdAfter.flatMap((after) =>
        createdBefore.flatMap((before) => updatedAfter.map((updated) => ({ author, after, before, updated }))),
      ),
    );

    it(`${combinations.length} combinations: each page and total is what the stored blogs give`, async () => {
      let nonEmpty = 0;
      for (const { author, after, before, updated } of combinations) {
        const params: Record<string, string> = { limit: '100' };
        if (author !== undefined) params.author = author;
        if (after) params.createdAfter = after[0];
        if (before) params.createdBefore = before[0];
        if (updated) params.updatedAfter = updated[0];
        const matching = stored.filter(
          (blog) =>
            (author === undefined || blog.author === author) &&
            (!after || Date.parse(blog.createdAt) > after[1]) &&
            (!before || Date.parse(blog.createdAt) < before[1]) &&
            (!updated || Date.parse(blog.updatedAt) > updated[1]),
        );
        const { body } = await listBlogs(t, params);
        expect({ params, ids: body.data.map((blog) => blog.id), total: body.total }).toEqual({
          params,
          ids: orderOf(matching, '-createdAt'),
          total: matching.length,
        });
        if (matching.length > 0) nonEmpty += 1;
      }
      // The combinations select different, non-trivial subsets.
      expect(nonEmpty).toBeGreaterThan(combinations.length / 4);
      expect(nonEmpty).toBeLessThan(combinations.length);
    });

    it.each([
      [
        'createdAfter is strict: the blog created at that very millisecond is left out',
        { createdAfter: at('10:00:00.000') },
        7,
      ],
      ['createdBefore is strict', { createdBefore: at('10:00:00.001') }, 1],
      ['a tie at the bound leaves out both blogs of that millisecond', { createdAfter: at('10:00:00.001') }, 5],
      ['updatedAfter is strict', { updatedAfter: at('12:00:00.000') }, 2],
      ['an interval with no blog', { createdAfter: at('11:00:00.000'), createdBefore: at('12:00:00.000') }, 0],
    ])('%s', async (_name, params, total) => {
      await expect(listBlogs(t, params)).resolves.toMatchObject({ body: { total } });
    });

    it('author is compared exactly: letter case, and any text is a value, never SQL', async () => {
      const rows = await countBlogs(t);
      for (const [author, total] of [
        ['Alice', 2],
        ['alice', 1],
        ['ALICE', 0],
        ['Ünïcödé Ann', 1],
        ["' OR '1'='1", 0],
        ['Alice%', 0],
      ] as const) {
        await expect(listBlogs(t, { author })).resolves.toMatchObject({ body: { total } });
      }
      expect(await countBlogs(t)).toBe(rows);
    });

    it('pages of a filtered list keep their total and follow the order', async () => {
      const matching = orderOf(
        stored.filter((blog) => Date.parse(blog.createdAt) > Date.parse(at('10:00:00.000'))),
        '-createdAt',
      );
      const walked: number[] = [];
      for (let offset = 0; offset < matching.length + 2; offset += 3) {
        const { body } = await listBlogs(t, { createdAfter: at('10:00:00'), limit: 3, offset });
        expect(body).toMatchObject({ total: matching.length, limit: 3, offset });
        walked.push(...body.data.map((blog) => blog.id));
      }
      expect(walked).toEqual(matching);
    });
  });

  describe("search: PostgreSQL's websearch_to_tsquery('simple', q) over title and content", () => {
    it.each([
      ['one word, whole words only (not "Helloworld")', 'hello', ['Hello World', 'hello again']],
      ['any letter case', 'HeLLo', ['Hello World', 'hello again']],
      ['every word must occur', 'hello world', ['Hello World']],
      ['the words may be in title or content', 'hello post', ['Hello World', 'hello again']],
      ['a word inside another word is no match', 'world', ['Hello World', 'World news']],
      ['"a phrase": adjacent words in that order', '"quick brown"', ['Postgres tips']],
      ['a phrase found in either field', '"brown fox"', ['Postgres tips', 'Brown fox']],
      ['-word excludes', 'post -draft', ['Hello World']],
      [
        'a lone -word: every blog without it',
        '-hello',
        ['World news', 'Helloworld', 'Postgres tips', 'Brown fox', 'Ünïcödé', 'Numbers 2026'],
      ],
      ['or between alternatives', 'draft or tips', ['hello again', 'Postgres tips']],
      ['no stemming in the simple configuration', 'posts', []],
      ['postgres is not PostgreSQL', 'postgres', ['Postgres tips']],
      ['digits are words', '15', ['Numbers 2026']],
      ['punctuation is ignored', 'hello!', ['Hello World', 'hello again']],
      ['no prefix matching', 'fox:*', ['Postgres tips', 'Brown fox']],
      ['words in other scripts', 'Straße café', ['Ünïcödé']],
      ['a lone "or" is a word', 'or', []],
      ['SQL is only text', "'; DROP TABLE blogs; --", []],
    ])('%s: q=%p', async (_name, q, titles) => {
      const { body } = await listBlogs(t, { q, limit: 100 });
      expect({ q, ids: body.data.map((blog) => blog.id), total: body.total }).toEqual({
        q,
        ids: idsOf(titles),
        total: titles.length,
      });
    });

    it('combines with the other filters', async () => {
      const { body } = await listBlogs(t, { q: 'hello or fox', author: 'Alice', createdAfter: at('10:00:00') });
      expect(body.data.map((blog) => blog.id)).toEqual(idsOf(['hello again']));
      expect(body.total).toBe(1);
    });

    it('searches the text as updated', async () => {
      const [blog] = await seedBlogs(t, [{ title: 'Before', content: 'old words' }]);
      await t.http
        .put(`${BLOGS}/${blog.id}`)
        .set('Authorization', `Bearer ${t.token('seed')}`)
        .send({ title: 'After', content: 'fresh words', author: 'Alice' })
        .expect(200);
      await expect(listBlogs(t, { q: 'old' })).resolves.toMatchObject({ body: { total: 0 } });
      await expect(listBlogs(t, { q: 'fresh after' })).resolves.toMatchObject({ body: { total: 1 } });
      stored = await seedBlogs(t, BLOGS_TO_FILTER);
    });

    it.each(['!!!', '-', '""', '&|!', '😀', ':*', '- -', '()'])(
      'q=%p has no word to search for: 400 naming q',
      async (q) => {
        const res = await t.http.get(`${BLOGS}?${listQuery({ q })}`);
        expectRejected(res, 'q');
        expect(messagesOf(res)).toEqual([
          'q must contain at least one word to search for (letters or digits, not only punctuation or operators)',
        ]);
      },
    );

    it('q of 200 characters is searched; 201 is 400', async () => {
      await expect(listBlogs(t, { q: `${'x'.repeat(195)} word` })).resolves.toMatchObject({ body: { total: 0 } });
      expectRejected(await t.http.get(`${BLOGS}?${listQuery({ q: 'x'.repeat(201) })}`), 'q');
    });
  });

  describe('fields: exactly the fields asked for', () => {
    it.each([
      ['id', ['id']],
      ['title', ['title']],
      ['content', ['content']],
      ['createdAt,id', ['createdAt', 'id']],
      ['id,title,author,createdAt,updatedAt', ['author', 'createdAt', 'id', 'title', 'updatedAt']],
      ['updatedAt,content,author,title,createdAt,id', ['author', 'content', 'createdAt', 'id', 'title', 'updatedAt']],
      ['slug,status,publishedAt', ['publishedAt', 'slug', 'status']],
      ['updatedAt,content,author,title,createdAt,id,status,publishedAt,slug,tags', BLOG_FIELDS],
    ])('fields=%s', async (fields, keys) => {
      const full = await listBlogs(t, { limit: 100 });
      const { body } = await listBlogs(t, { fields, limit: 100 });
      expect(body.total).toBe(full.body.total);
      expect(body.data).toHaveLength(full.body.data.length);
      body.data.forEach((item, i) => {
        expect(Object.keys(item).sort()).toEqual(keys);
        const whole = full.body.data[i] as unknown as Record<string, unknown>;
        expect(item).toEqual(Object.fromEntries(keys.map((key) => [key, whole[key]])));
      });
    });

    it('combines with filters, sort and cursors', async () => {
      const first = await listBlogs(t, { fields: 'title', sort: 'title', author: 'Alice', limit: 1 });
      expect(first.body.data).toEqual([{ title: 'Hello World' }]);
      const second = await listBlogs(t, {
        fields: 'id,title',
        sort: 'title',
        author: 'Alice',
        cursor: first.body.nextCursor ?? '',
      });
      expect(second.body.data).toEqual([{ id: idsOf(['hello again'])[0], title: 'hello again' }]);
    });
  });

  describe('validation: every bad value is 400 naming its parameter', () => {
    const cursor = `${'A'.repeat(40)}.${'b'.repeat(43)}`;

    it.each<[string, string]>([
      ['author', 'author='],
      ['author', `author=${'a'.repeat(101)}`],
      ['author', 'author=%20%20'],
      ['author', 'author=a%00b'],
      ['author', 'author=a&author=a'],
      ['q', 'q='],
      ['q', 'q=%09'],
      ['q', 'q=a%00'],
      ['q', 'q=a&q=b'],
      ['createdAfter', 'createdAfter='],
      ['createdAfter', 'createdAfter=2026-11-22'],
      ['createdAfter', 'createdAfter=2026-11-22T10:00:00'],
      ['createdAfter', 'createdAfter=2026-11-22%2010:00:00Z'],
      ['createdAfter', 'createdAfter=2026-11-22T10:00:00+0100'],
      ['createdAfter', 'createdAfter=1767225600000'],
      ['createdAfter', 'createdAfter=yesterday'],
      ['createdBefore', 'createdBefore=2026-02-30T00:00:00Z'],
      ['createdBefore', 'createdBefore=2026-11-22T24:00:00Z'],
      ['createdBefore', 'createdBefore=0000-12-31T00:00:00Z'],
      ['createdBefore', 'createdBefore=2026-11-22T10:00:00Z&createdBefore=2026-11-22T10:00:00Z'],
      ['updatedAfter', 'updatedAfter=2026-11-22T10:00:00.Z'],
      ['updatedAfter', 'updatedAfter=10000-01-01T00:00:00Z'],
      ['updatedAfter', 'updatedAfter[]=2026-11-22T10:00:00Z'],
      ['sort', 'sort='],
      ['sort', 'sort=author'],
      ['sort', 'sort=%2Btitle'],
      ['sort', 'sort=created_at'],
      ['sort', 'sort=-createdat'],
      ['sort', 'sort=title,id'],
      ['sort', 'sort=title&sort=title'],
      ['fields', 'fields='],
      ['fields', 'fields=id,'],
      ['fields', 'fields=,id'],
      ['fields', 'fields=id,,title'],
      ['fields', 'fields=id,%20title'],
      ['fields', 'fields=id,id'],
      ['fields', 'fields=ownerSub'],
      ['fields', 'fields=searchVector'],
      ['fields', 'fields=ID'],
      ['fields', 'fields=id&fields=title'],
      ['cursor', 'cursor='],
      ['cursor', 'cursor=garbage'],
      ['cursor', `cursor=${cursor}&cursor=${cursor}`],
      ['cursor', `cursor=${cursor}&offset=0`],
      ['cursor', `offset=20&cursor=${cursor}`],
    ])('%s: ?%s', async (parameter, query) => {
      expectRejected(await t.http.get(`${BLOGS}?${query}`), parameter);
    });

    it('reports every bad parameter of a request', async () => {
      const res = await t.http.get(`${BLOGS}?sort=x&fields=y&createdAfter=z&author=`);
      const messages = messagesOf(res);
      for (const name of ['sort', 'fields', 'createdAfter', 'author']) {
        expect({ name, named: messages.some((m) => m.startsWith(name)) }).toEqual({ name, named: true });
      }
    });

    it.each([
      ['a date-time with an offset and fractions', 'createdAfter=2026-11-22T10:00:00.123456%2B05:30'],
      ['lower-case t and z', 'createdBefore=2026-11-22t10:00:00z'],
      ['a leap second', 'updatedAfter=2016-12-31T23:59:60Z'],
      ['the first instant of year 1', 'createdAfter=0001-01-01T00:00:00Z'],
      ['author of 100 characters', `author=${'a'.repeat(100)}`],
      ['every sort', 'sort=-updatedAt'],
    ])('accepts %s', async (_name, query) => {
      await listBlogs(t, `${BLOGS}?${query}`);
    });
  });
});

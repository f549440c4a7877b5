import { SEARCH_COUNT_LIMIT, SEARCH_TOTAL_CAP } from './blog-list';
import { blogListStatement } from './blog-list-statement';
import type { BlogListQuery } from './blogs.repository';

const NOW = new Date('2026-06-01T00:00:00.000Z');

const query = (overrides: Partial<BlogListQuery>): BlogListQuery => ({
  filters: {},
  sort: '-createdAt',
  limit: 10,
  offset: 0,
  withContent: true,
  status: 'published',
  now: NOW,
  ...overrides,
});

describe('blogListStatement', () => {
  it('names one statement per shape and binds each request its own values', () => {
    const first = blogListStatement(query({ filters: { author: 'Ada' }, limit: 5, offset: 20 }));
    const again = blogListStatement(query({ filters: { author: 'Grace' }, limit: 10, offset: 30 }));

    expect(again.statement).toBe(first.statement);
    expect(first.values).toEqual(['Ada', NOW, 6, 20]);
    expect(again.values).toEqual(['Grace', NOW, 11, 30]);
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['another filter', { filters: { q: 'word' } }],
    ['another order', { sort: 'title' }],
    ['a keyset position', { after: { id: 3, value: new Date(0) } }],
    ['no content', { withContent: false }],
    ['another status', { status: 'any' }],
    ['an owner', { status: 'draft', owner: 'alice' }],
  ])('gives %s a statement of its own', (_name, overrides) => {
    const plain = blogListStatement(query({}));
    const other = blogListStatement(query(overrides));

    expect(other.statement.name).not.toBe(plain.statement.name);
    expect(other.statement.text).not.toBe(plain.statement.text);
  });

  it('binds a filter used by the total and by the page once', () => {
    const { statement, values } = blogListStatement(query({ filters: { author: 'Ada' } }));

    // The author's counter and the page; the author's scheduled blogs compare theirs with $1 too.
    expect(statement.text.match(/"author" = \$1/g)).toHaveLength(2);
    expect(statement.text).toContain('WHERE b."id" = s."id") = $1');
    expect(values).toEqual(['Ada', NOW, 11]);
  });

  it.each<[string, Partial<BlogListQuery>, unknown[], string]>([
    ['by id', { sort: '-id', after: { id: 42 } }, [NOW, 42, 11, 0], '"id" < $2'],
    [
      'by title',
      { sort: 'title', after: { id: 42, value: 'Ab' } },
      [NOW, 42, 'Ab', 11, 0],
      '("title" COLLATE "C", "id") > ($3 COLLATE "C", $2)',
    ],
    [
      'by publishedAt where drafts may be: they come last',
      { sort: '-publishedAt', status: 'any', owner: 'alice', after: { id: 42, value: null } },
      ['alice', 42, null, 11, 0],
      `(COALESCE("published_at", '-infinity'::timestamptz), "id") < (COALESCE($3, '-infinity'::timestamptz), $2)`,
    ],
    [
      'by publishedAt of live blogs',
      { sort: 'publishedAt', after: { id: 42, value: NOW } },
      [NOW, 42, NOW, 11, 0],
      '("published_at", "id") > ($3, $2)',
    ],
  ])('continues after a keyset position %s', (_name, overrides, values, condition) => {
    const bound = blogListStatement(query(overrides));

    expect(bound.values).toEqual(values);
    expect(bound.statement.text).toContain(condition);
  });

  it.each<[string, Partial<BlogListQuery>, string]>([
    ['published: live at now', {}, `COALESCE("published_at", 'infinity') <= $1`],
    [
      'scheduled',
      { status: 'scheduled', owner: 'alice' },
      `"published_at" > $1 AND "published_at" < 'infinity' AND "owner_sub" = $2`,
    ],
    ['draft', { status: 'draft', owner: 'alice' }, '"published_at" IS NULL AND "owner_sub" = $1'],
  ])('status %s', (_name, overrides, condition) => {
    expect(blogListStatement(query(overrides)).statement.text).toContain(condition);
  });

  it('any status of every owner has no condition and counts its rows', () => {
    const { statement, lane } = blogListStatement(query({ status: 'any' }));
    expect(statement.text).not.toContain('WHERE "published_at"');
    expect(statement.text).toContain('SELECT count(*) AS "total" FROM "blogs")');
    expect(lane).toBe('slow');
  });

  it('counts from the counter only when unfiltered, and a search reads its matches once', () => {
    const plain = blogListStatement(query({})).statement.text;
    const search = blogListStatement(query({ filters: { q: 'word', author: 'Ada' } })).statement.text;

    expect(plain).toContain('FROM "blog_counts"');
    expect(plain).toContain(`(SELECT count(*) FROM "scheduled_blogs"($1))`);
    expect(blogListStatement(query({})).lane).toBe('fast');
    expect(blogListStatement(query({ filters: { author: 'Ada', createdAfter: NOW } })).lane).toBe('slow');
    expect(blogListStatement(query({ filters: { q: 'word', author: 'Ada' } })).lane).toBe('long');
    expect(search).not.toContain('blog_counts');
    expect(search).toMatch(
      /^WITH "matches" AS MATERIALIZED \(SELECT "id", "created_at" AS "key" FROM "blogs" WHERE "author" = \$1 AND "search_vector" @@/,
    );
  });

  it.each([
    ['count', SEARCH_TOTAL_CAP + 1],
    ['deep', SEARCH_COUNT_LIMIT],
  ] as const)(
    `a search's %s reads at most %p matches; past ${SEARCH_TOTAL_CAP} its page walks the blogs`,
    (total, most) => {
      const { text } = blogListStatement(query({ filters: { q: 'word', author: 'Ada' } }), total).statement;

      expect(text).toContain(`AND "search_vector" @@ (SELECT websearch_to_tsquery('simple', $2)) AND`);
      expect(text).toContain(`<= $3 LIMIT ${most}), "counted" AS (SELECT count(*) AS "n" FROM "matches")`);
      expect(text).toContain(`FROM "matches" m WHERE (SELECT "n" FROM "counted") <= ${SEARCH_TOTAL_CAP}`);
      expect(text).toContain(
        `FROM "blogs" WHERE (SELECT "n" FROM "counted") > ${SEARCH_TOTAL_CAP} AND "author" = $1 AND ` +
          `ts_match_vq("search_vector", (SELECT websearch_to_tsquery('simple', $2))) AND`,
      );
    },
  );

  it("a search's walk reads its page and the write position, with no count, in a statement of its own", () => {
    const shape = query({ filters: { q: 'word', author: 'Ada' } });
    const walk = blogListStatement(shape, 'walk');

    expect(walk.statement.name).not.toBe(blogListStatement(shape).statement.name);
    expect(walk.statement.text).not.toContain('"matches"');
    expect(walk.statement.text).toContain('"last_value" - 1 END\n  FROM "event_outbox_seq_seq") AS "position"');
    expect(walk.statement.text).toContain(
      `FROM "blogs" WHERE "author" = $1 AND ts_match_vq("search_vector", (SELECT websearch_to_tsquery('simple', $2)))`,
    );
    expect(walk.lane).toBe('slow');
    expect(walk.values).toEqual(blogListStatement(shape).values);
  });

  it.each<[string, Partial<BlogListQuery>, string]>([
    ['one tag, newest first', { filters: { tag: ['go'] } }, 'ORDER BY bt."blog_created_at" DESC, bt."blog_id" DESC'],
    [
      'one tag after a position, oldest first, with an author',
      { sort: 'createdAt', filters: { tag: ['go'], author: 'Ada' }, after: { id: 42, value: NOW } },
      '(bt."blog_created_at", bt."blog_id") > ($5, $4)',
    ],
  ])('reads %s in order through blog_tags', (_name, overrides, order) => {
    const { statement } = blogListStatement(query(overrides));

    expect(statement.text).toContain('FROM "blog_tags" bt JOIN "blogs"');
    expect(statement.text).toMatch(/bt\."tag_slug" = \(SELECT \(\$\d::text\[\]\)\[1\]\)/);
    expect(statement.text).toMatch(/<= \(SELECT \$\d::timestamptz\)/);
    expect(statement.text).toContain(order);
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['two tags', { filters: { tag: ['go', 'rust'] } }],
    ['one tag by title', { sort: 'title', filters: { tag: ['go'] } }],
    ['one tag and a search', { filters: { tag: ['go'], q: 'word' } }],
  ])('reads %s through the blogs alone', (_name, overrides) => {
    const { statement } = blogListStatement(query(overrides));

    expect(statement.text).not.toContain('blog_tags');
    expect(statement.text).toContain('"tag_slugs" @> ');
  });

  it.each<[string, Partial<BlogListQuery>, number, unknown[]]>([
    ['limit 10', { limit: 10 }, 11, [['go'], NOW, 11]],
    ['limit 11', { limit: 11 }, 21, [['go'], NOW, 12]],
    ['limit 50, after a position', { limit: 50, after: { id: 42, value: NOW } }, 51, [['go'], NOW, 42, NOW, 51]],
    ['limit 100', { limit: 100 }, 101, [['go'], NOW, 101]],
  ])("writes the rows a tag's first page reads into its text: %s", (_name, overrides, rows, values) => {
    const { statement, values: bound } = blogListStatement(query({ filters: { tag: ['go'] }, ...overrides }));

    expect(statement.text).toContain(`DESC LIMIT ${rows}) p ON true`);
    expect(statement.text).toMatch(/ LIMIT \$\d+$/);
    expect(statement.text).not.toContain('OFFSET');
    expect(bound).toEqual(values);
  });

  it.each<[string, BlogListQuery['filters'], unknown]>([
    ['a tag', { tag: ['go'] }, ['go']],
    ['an author', { author: 'Ada' }, 'Ada'],
    ['a search', { q: 'word' }, 'word'],
  ])(
    'gives the first pages of %s one statement per rows read, and binds the limit and offset of other pages',
    (_name, filters, value) => {
      const page = (overrides: Partial<BlogListQuery>) => blogListStatement(query({ filters, ...overrides }));
      const later = page({ offset: 10 });

      expect(page({ limit: 12 }).statement.name).toBe(page({ limit: 20 }).statement.name);
      expect(page({ limit: 20 }).statement.name).not.toBe(page({ limit: 21 }).statement.name);
      expect(page({ limit: 20 }).statement.text).toMatch(/ LIMIT 21\)+ p ON true .* LIMIT \$\d+$/);
      expect(later.statement.text).toMatch(/ LIMIT \$\d+ OFFSET \$\d+\)+ p ON true/);
      expect(later.values).toEqual([value, NOW, 11, 10]);
    },
  );

  it.each<[string, Partial<BlogListQuery>, 'fast' | 'slow']>([
    ['newest first', {}, 'fast'],
    ['oldest first after a cursor', { sort: 'createdAt', after: { id: 3, value: NOW } }, 'fast'],
    ['by publishedAt', { sort: '-publishedAt' }, 'slow'],
    ['by id', { sort: 'id' }, 'slow'],
    ['by title', { sort: 'title' }, 'slow'],
  ])("one tag's list %s, totalled by its counter, runs in the %s lane", (_name, overrides, lane) => {
    const bound = blogListStatement(query({ filters: { tag: ['go'] }, ...overrides }));

    expect(bound.statement.text).toContain('FROM "tag_counts"');
    expect(bound.lane).toBe(lane);
  });

  it('gives one tag and two tags statements of their own, and counts one tag from its counter', () => {
    const one = blogListStatement(query({ filters: { tag: ['go'] } }));
    const two = blogListStatement(query({ filters: { tag: ['go', 'rust'] } }));

    expect(one.statement.name).not.toBe(two.statement.name);
    expect(one.statement.text).toContain('FROM "tag_counts"');
    expect(one.lane).toBe('fast');
    expect(two.lane).toBe('slow');
  });

  it.each<[string, Partial<BlogListQuery>, boolean]>([
    ['newest first', { filters: { author: 'Ada' } }, true],
    ['by title', { sort: 'title', filters: { author: 'Ada' } }, true],
    [
      'by updatedAt after a cursor',
      { sort: '-updatedAt', filters: { author: 'Ada' }, after: { id: 3, value: NOW } },
      true,
    ],
    ['by publishedAt, which no author index serves', { sort: '-publishedAt', filters: { author: 'Ada' } }, false],
    ['with another filter', { filters: { author: 'Ada', createdAfter: NOW } }, false],
    ['of drafts by their owner', { filters: { author: 'Ada' }, status: 'draft', owner: 'alice' }, false],
  ])("an author's list, %s: the total from the author's counter is %s", (_name, overrides, counter) => {
    const { statement, lane } = blogListStatement(query(overrides));

    expect(statement.text.includes('FROM "author_counts"')).toBe(counter);
    expect(statement.text.includes('SELECT count(*) AS "total" FROM "blogs"')).toBe(!counter);
    expect(lane).toBe(counter ? 'fast' : 'slow');
  });
});

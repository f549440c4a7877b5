import { blogListStatement } from './blog-list-statement';
import type { BlogListQuery } from './blogs.repository';

const query = (overrides: Partial<BlogListQuery>): BlogListQuery => ({
  filters: {},
  sort: '-createdAt',
  limit: 10,
  offset: 0,
  withContent: true,
  ...overrides,
});

describe('blogListStatement', () => {
  it('names one statement per shape and binds each request its own values', () => {
    const first = blogListStatement(query({ filters: { author: 'Ada' }, limit: 5, offset: 20 }));
    const again = blogListStatement(query({ filters: { author: 'Grace' }, limit: 10, offset: 0 }));

    expect(again.statement).toBe(first.statement);
    expect(first.values).toEqual(['Ada', 6, 20]);
    expect(again.values).toEqual(['Grace', 11, 0]);
  });

  it.each<[string, Partial<BlogListQuery>]>([
    ['another filter', { filters: { q: 'word' } }],
    ['another order', { sort: 'title' }],
    ['a keyset position', { after: { id: 3, value: new Date(0) } }],
    ['no content', { withContent: false }],
  ])('gives %s a statement of its own', (_name, overrides) => {
    const plain = blogListStatement(query({}));
    const other = blogListStatement(query(overrides));

    expect(other.statement.name).not.toBe(plain.statement.name);
    expect(other.statement.text).not.toBe(plain.statement.text);
  });

  it('binds a filter used by the total and by the page once', () => {
    const { statement, values } = blogListStatement(query({ filters: { author: 'Ada' } }));

    expect(statement.text.match(/"author" = \$1/g)).toHaveLength(2);
    expect(values).toEqual(['Ada', 11, 0]);
  });

  it.each<[string, Partial<BlogListQuery>, unknown[]]>([
    ['by id', { sort: '-id', after: { id: 42 } }, [42, 11, 0]],
    ['by title', { sort: 'title', after: { id: 42, value: 'Ab' } }, [42, 'Ab', 11, 0]],
  ])('continues after a keyset position %s', (_name, overrides, values) => {
    const bound = blogListStatement(query(overrides));

    expect(bound.values).toEqual(values);
    expect(bound.statement.text).toContain(
      overrides.sort === 'title' ? '("title" COLLATE "C", "id") > ($2, $1)' : '"id" < $1',
    );
  });

  it('counts from the counter only when unfiltered, and a search reads its matches once', () => {
    const plain = blogListStatement(query({})).statement.text;
    const search = blogListStatement(query({ filters: { q: 'word', author: 'Ada' } })).statement.text;

    expect(plain).toContain('FROM "blog_counts"');
    expect(blogListStatement(query({})).lane).toBe('fast');
    expect(blogListStatement(query({ filters: { author: 'Ada' } })).lane).toBe('slow');
    expect(blogListStatement(query({ filters: { q: 'word', author: 'Ada' } })).lane).toBe('long');
    expect(search).not.toContain('blog_counts');
    expect(search).toMatch(
      /^WITH "matches" AS MATERIALIZED \(SELECT "id", "created_at" AS "key" FROM "blogs" WHERE "author" = \$1 AND "search_vector" @@/,
    );
  });
});

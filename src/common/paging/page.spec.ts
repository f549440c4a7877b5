import { pageOfRows, pageWithTotalSql, perKey } from './page';

describe('pageWithTotalSql', () => {
  it('joins the page laterally to the total, so that an empty page keeps it', () => {
    expect(pageWithTotalSql('t."n" AS "total"', '"counts" t', 'SELECT 1', ' WHERE t."id" = $1')).toBe(
      'SELECT t."n" AS "total", p.* FROM "counts" t LEFT JOIN LATERAL (SELECT 1) p ON true WHERE t."id" = $1',
    );
  });
});

describe('pageOfRows', () => {
  const row = (id: number | null, total: string | number = '3') => ({ id, total });

  it.each([
    ['no row', [], { items: [], total: 0, more: false }],
    ['the empty page', [row(null)], { items: [], total: 3, more: false }],
    ['a page of two', [row(1), row(2)], { items: [1, 2], total: 3, more: false }],
    ['a row beyond the limit', [row(1), row(2), row(3)], { items: [1, 2], total: 3, more: true }],
  ])('reads %s', (_case, rows, page) => {
    expect(pageOfRows(rows, 2, (r) => r.id)).toEqual(page);
  });
});

describe('perKey', () => {
  it('makes each key once', () => {
    const make = jest.fn((limit: number) => ({ name: `first-page.${limit}` }));
    const statement = perKey(make);

    expect(statement(10)).toBe(statement(10));
    expect(statement(20)).toEqual({ name: 'first-page.20' });
    expect(make).toHaveBeenCalledTimes(2);
  });
});

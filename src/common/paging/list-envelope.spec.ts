import { listEnvelope } from './list-envelope';

describe('listEnvelope', () => {
  it('answers a page with cursors as {data, total, totalRelation, limit, offset, nextCursor}', () => {
    const page = { items: [1, 2], total: 5, offset: null, nextCursor: 'c.d' };

    expect(listEnvelope(page, 2, (n) => n * 10)).toStrictEqual({
      data: [10, 20],
      total: 5,
      totalRelation: 'eq',
      limit: 2,
      offset: null,
      nextCursor: 'c.d',
    });
    expect(listEnvelope({ ...page, offset: 3, nextCursor: null }, 2, String)).toHaveProperty('nextCursor', null);
  });

  it.each<['eq' | 'gte', number]>([
    ['eq', 10_000],
    ['gte', 10_000],
  ])('passes a page whose total relation is %s on', (totalRelation, total) => {
    const page = { items: [], total, totalRelation, offset: 0, nextCursor: null };

    expect(listEnvelope(page, 10, String)).toMatchObject({ total, totalRelation });
  });

  it('answers a page without cursors as {data, total, totalRelation, limit, offset}, with no nextCursor', () => {
    expect(listEnvelope({ items: [1], total: 1, offset: 0 }, 10, String)).toStrictEqual({
      data: ['1'],
      total: 1,
      totalRelation: 'eq',
      limit: 10,
      offset: 0,
    });
  });
});

import { globalPipesFor } from '../../../test/support/global-pipes';
import { ListBlogsQueryDto } from './list-blogs-query.dto';

const { runPipes, messagesOf } = globalPipesFor({ type: 'query', metatype: ListBlogsQueryDto });

describe('ListBlogsQueryDto through the global pipes', () => {
  it('defaults to limit 10 and sort -createdAt; offset stays unset (0, unless a cursor is given)', async () => {
    const query = await runPipes({});

    expect(query).toBeInstanceOf(ListBlogsQueryDto);
    expect(query).toEqual({ limit: 10, sort: '-createdAt', status: 'published' });
  });

  it('turns canonical decimal strings into numbers', async () => {
    await expect(runPipes({ limit: '25', offset: '40' })).resolves.toEqual({
      limit: 25,
      offset: 40,
      sort: '-createdAt',
      status: 'published',
    });
  });

  it.each([
    ['1', 1],
    ['100', 100],
  ])('accepts limit %p', async (raw, expected) => {
    const query = (await runPipes({ limit: raw })) as ListBlogsQueryDto;

    expect(query.limit).toBe(expected);
    expect(query.offset).toBeUndefined();
  });

  it.each([
    [{ limit: ['1', '2'] }, ['limit must be given at most once; the query repeats it']],
    [
      { limit: ['1', '1'], sort: ['id', 'id'] },
      ['limit', 'sort'].map((k) => `${k} must be given at most once; the query repeats it`),
    ],
    [
      { offset: ['1', '2'], limit: '0', page: '2' },
      [
        'offset must be given at most once; the query repeats it',
        'property page should not exist',
        'limit must not be less than 1',
      ],
    ],
    [{ foo: ['1', '2'] }, ['property foo should not exist']],
  ])('names each repeated parameter of %j, beside every other problem', async (query, expected) => {
    await expect(messagesOf(query)).resolves.toEqual(expect.arrayContaining(expected));
    await expect(messagesOf(query)).resolves.toHaveLength(expected.length);
  });

  it.each(['0', '101', '1000'])('rejects limit %p naming limit', async (raw) => {
    const messages = await messagesOf({ limit: raw });

    expect(messages.some((m) => m.startsWith('limit'))).toBe(true);
  });

  it.each([
    ['0', 0],
    ['2147483647', 2147483647],
  ])('accepts offset %p', async (raw, expected) => {
    const query = (await runPipes({ offset: raw })) as ListBlogsQueryDto;

    expect(query.offset).toBe(expected);
    expect(query.limit).toBe(10);
  });

  it('rejects offset 2147483648 naming offset', async () => {
    const messages = await messagesOf({ offset: '2147483648' });

    expect(messages.some((m) => m.startsWith('offset'))).toBe(true);
  });

  it.each([
    ['01'],
    ['1.0'],
    ['1e1'],
    [''],
    ['-1'],
    ['+1'],
    [' 1'],
    ['1 '],
    ['0x10'],
    ['abc'],
    [['1', '2']],
    [{ a: '1' }],
  ])('rejects limit %p and offset %p', async (raw) => {
    const limitMessages = await messagesOf({ limit: raw });
    expect(limitMessages.some((m) => m.startsWith('limit'))).toBe(true);

    const offsetMessages = await messagesOf({ offset: raw });
    expect(offsetMessages.some((m) => m.startsWith('offset'))).toBe(true);
  });

  it('rejects numbers that are too big to be exact', async () => {
    await messagesOf({ offset: '99999999999999999999' });
  });

  it('rejects an unknown query parameter naming it', async () => {
    const messages = await messagesOf({ limit: '5', page: '2' });

    expect(messages).toContain('property page should not exist');
  });

  it('rejects an unknown "constructor" query parameter naming it', async () => {
    const messages = await messagesOf({ constructor: '1' });

    expect(messages.some((m) => m.includes('constructor'))).toBe(true);
  });

  it('reports both bad parameters at once', async () => {
    const messages = await messagesOf({ limit: '0', offset: '-1' });

    expect(messages.some((m) => m.startsWith('limit'))).toBe(true);
    expect(messages.some((m) => m.startsWith('offset'))).toBe(true);
  });

  describe('filters, sort, fields and cursor', () => {
    const cursor = `${'A'.repeat(40)}.${'b'.repeat(43)}`;

    it('keeps every valid parameter, instants as Dates', async () => {
      const query = await runPipes({
        author: 'Alice',
        q: '"hello world" -draft',
        createdAfter: '2026-11-22T10:00:00Z',
        createdBefore: '2026-11-22T11:00:00.5+01:00',
        updatedAfter: '2026-11-22T10:00:00.123456Z',
        sort: 'title',
        fields: 'id,title',
        cursor,
        limit: '5',
        status: 'any',
      });

      expect(query).toEqual({
        limit: 5,
        author: 'Alice',
        q: '"hello world" -draft',
        createdAfter: new Date('2026-11-22T10:00:00.000Z'),
        createdBefore: new Date('2026-11-22T10:00:00.500Z'),
        updatedAfter: new Date('2026-11-22T10:00:00.123Z'),
        sort: 'title',
        fields: 'id,title',
        cursor,
        status: 'any',
      });
    });

    it('compares to the millisecond: createdAfter rounds a finer instant down, createdBefore up', async () => {
      const query = (await runPipes({
        createdAfter: '2026-11-22T10:00:00.0005Z',
        createdBefore: '2026-11-22T10:00:00.0005Z',
        updatedAfter: '2026-11-22T10:00:00.0005Z',
      })) as ListBlogsQueryDto;

      expect(query.createdAfter?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
      expect(query.createdBefore?.toISOString()).toBe('2026-11-22T10:00:00.001Z');
      expect(query.updatedAfter?.toISOString()).toBe('2026-11-22T10:00:00.000Z');
    });

    it.each(['createdAt', '-createdAt', 'updatedAt', '-updatedAt', 'title', '-title', 'id', '-id'])(
      'accepts sort=%s',
      async (sort) => {
        await expect(runPipes({ sort })).resolves.toMatchObject({ sort });
      },
    );

    it.each(['id', 'content', 'id,title,content,author,createdAt,updatedAt', 'updatedAt,id'])(
      'accepts fields=%s',
      async (fields) => {
        await expect(runPipes({ fields })).resolves.toMatchObject({ fields });
      },
    );

    it.each<[string, Record<string, unknown>]>([
      ['author', { author: '' }],
      ['author', { author: 'a'.repeat(101) }],
      ['author', { author: ' ' }],
      ['author', { author: 'a\u0000b' }],
      ['author', { author: ['a', 'b'] }],
      ['q', { q: '' }],
      ['q', { q: 'a'.repeat(201) }],
      ['q', { q: '\t' }],
      ['q', { q: 'x\u0000' }],
      ['q', { q: ['a', 'b'] }],
      ['createdAfter', { createdAfter: '2026-11-22' }],
      ['createdAfter', { createdAfter: '2026-11-22T10:00:00' }],
      ['createdAfter', { createdAfter: '' }],
      ['createdBefore', { createdBefore: '2026-02-30T00:00:00Z' }],
      ['createdBefore', { createdBefore: '1767225600000' }],
      ['updatedAfter', { updatedAfter: '0000-01-01T00:00:00Z' }],
      ['updatedAfter', { updatedAfter: ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00Z'] }],
      ['sort', { sort: 'author' }],
      ['sort', { sort: '+title' }],
      ['sort', { sort: 'Title' }],
      ['sort', { sort: '' }],
      ['sort', { sort: ['title', 'id'] }],
      ['fields', { fields: '' }],
      ['fields', { fields: 'id,' }],
      ['fields', { fields: 'id,,title' }],
      ['fields', { fields: 'id, title' }],
      ['fields', { fields: 'id,id' }],
      ['fields', { fields: 'ownerSub' }],
      ['fields', { fields: 'searchVector' }],
      ['fields', { fields: ['id', 'title'] }],
      ['cursor', { cursor: '' }],
      ['cursor', { cursor: 'garbage' }],
      ['cursor', { cursor: `${cursor}=` }],
      ['cursor', { cursor: [cursor, cursor] }],
      ['cursor', { cursor, offset: '0' }],
    ])('rejects a bad %s (%p) naming it', async (name, value) => {
      const messages = await messagesOf(value);

      expect(messages.every((m) => m.startsWith(name))).toBe(true);
    });

    it('names both cursor and offset when they come together', async () => {
      const messages = await messagesOf({ cursor, offset: '10' });

      expect(messages).toEqual(['cursor and offset cannot be combined: a cursor continues where its page ended']);
    });
  });

  it.each(['published', 'draft', 'scheduled', 'any'])('accepts status %s', async (status) => {
    await expect(runPipes({ status })).resolves.toMatchObject({ status });
  });

  it.each(['Published', 'all', '', 'draft,scheduled'])('rejects status %p naming status', async (status) => {
    await expect(messagesOf({ status })).resolves.toEqual(['status must be one of draft, scheduled, published, any']);
  });

  it.each(['publishedAt', '-publishedAt'])('accepts sort %s', async (sort) => {
    await expect(runPipes({ sort })).resolves.toMatchObject({ sort });
  });
});

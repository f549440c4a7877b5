import { globalPipesFor } from '../../../test/support/global-pipes';
import { ListTagsQueryDto } from './list-tags-query.dto';

const { runPipes, messagesOf } = globalPipesFor({ type: 'query', metatype: ListTagsQueryDto });

describe('ListTagsQueryDto through the global pipes', () => {
  it('defaults to limit 10, offset 0 and sort -count', async () => {
    const query = await runPipes({});

    expect(query).toBeInstanceOf(ListTagsQueryDto);
    expect(query).toEqual({ limit: 10, offset: 0, sort: '-count' });
  });

  it.each([
    [
      { limit: '1', offset: '0', sort: 'slug' },
      { limit: 1, offset: 0, sort: 'slug' },
    ],
    [
      { limit: '100', offset: '2147483647', sort: '-count' },
      { limit: 100, offset: 2147483647, sort: '-count' },
    ],
  ])('takes %j as %j', async (raw, expected) => {
    await expect(runPipes(raw)).resolves.toEqual(expected);
  });

  it.each([
    ['limit', { limit: '0' }],
    ['limit', { limit: '101' }],
    ['limit', { limit: '01' }],
    ['offset', { offset: '-1' }],
    ['offset', { offset: '2147483648' }],
    ['sort', { sort: 'count' }],
    ['sort', { sort: '-slug' }],
    ['sort', { sort: 'name' }],
    ['sort', { sort: ['slug', 'slug'] }],
    ['cursor', { cursor: 'abc.def' }],
    ['page', { page: '2' }],
  ])('refuses a bad %s naming it', async (name, raw) => {
    const messages = await messagesOf(raw);

    expect(messages.length).toBeGreaterThan(0);
    expect(messages.every((message) => message.includes(name))).toBe(true);
  });

  it('says which sorts there are', async () => {
    await expect(messagesOf({ sort: 'count' })).resolves.toEqual(['sort must be one of -count, slug']);
  });
});

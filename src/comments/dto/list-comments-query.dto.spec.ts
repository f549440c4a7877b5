import { globalPipesFor } from '../../../test/support/global-pipes';
import { ListCommentsQueryDto } from './list-comments-query.dto';

const { runPipes, messagesOf } = globalPipesFor({ type: 'query', metatype: ListCommentsQueryDto });

describe('ListCommentsQueryDto through the global pipes', () => {
  it('defaults to limit 10; offset and cursor stay unset', async () => {
    const query = await runPipes({});
    expect(query).toBeInstanceOf(ListCommentsQueryDto);
    expect(query).toEqual({ limit: 10 });
  });

  it('takes limit 1 to 100 and offset 0 to int4 in canonical digits', async () => {
    await expect(runPipes({ limit: '100', offset: '2147483647' })).resolves.toEqual({ limit: 100, offset: 2147483647 });
    await expect(runPipes({ limit: '1', offset: '0' })).resolves.toEqual({ limit: 1, offset: 0 });
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ limit: '01' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ offset: '2147483648' }, 'offset'],
    [{ cursor: 'abc' }, 'cursor must be the nextCursor of an earlier answer'],
    [{ cursor: `${'a'.repeat(10)}.${'b'.repeat(43)}`, offset: '0' }, 'cursor and offset cannot be combined'],
    [{ sort: 'id' }, 'property sort should not exist'],
    [{ status: 'draft' }, 'property status should not exist'],
  ])('%j is 400 naming it: %s', async (query, message) => {
    const messages = await messagesOf(query);
    expect(messages.some((m) => m.startsWith(message))).toBe(true);
  });
});

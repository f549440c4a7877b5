import { globalPipesFor } from '../../../test/support/global-pipes';
import { COMMENT_LIMITS, CreateCommentDto } from './create-comment.dto';

const { runPipes, messagesOf } = globalPipesFor({ type: 'body', metatype: CreateCommentDto });

const valid = { author: 'Bob', body: 'Nice post.' };

describe('CreateCommentDto through the global pipes', () => {
  it('passes a valid body as a CreateCommentDto with the same values, kept exactly', async () => {
    const body = { author: ' Zoë 👩‍💻 ', body: '  <b>Hi</b> & "you"\n' };
    const result = await runPipes({ ...body });
    expect(result).toBeInstanceOf(CreateCommentDto);
    expect(result).toEqual(body);
  });

  it('takes the exact limits, counting code points', async () => {
    expect(COMMENT_LIMITS).toEqual({ author: { min: 1, max: 100 }, body: { min: 1, max: 10_000 } });
    const body = { author: '😀'.repeat(100), body: 'b'.repeat(10_000) };
    await expect(runPipes(body)).resolves.toEqual(body);
    await expect(runPipes({ author: 'a', body: 'b' })).resolves.toEqual({ author: 'a', body: 'b' });
  });

  it.each([
    [{ body: 'x' }, 'author should not be null or undefined'],
    [{ author: 'x' }, 'body should not be null or undefined'],
    [{ author: 1, body: 'x' }, 'author must be a string'],
    [{ author: 'x', body: true }, 'body must be a string'],
    [{ author: '', body: 'x' }, 'author must be 1 to 100 characters long'],
    [{ author: 'a'.repeat(101), body: 'x' }, 'author must be 1 to 100 characters long'],
    [{ author: '😀'.repeat(101), body: 'x' }, 'author must be 1 to 100 characters long'],
    [{ author: 'x', body: 'b'.repeat(10_001) }, 'body must be 1 to 10000 characters long'],
    [{ author: 'x', body: ' \n\t' }, 'body'],
    [{ author: 'x', body: 'a\u0000' }, 'body'],
    [{ ...valid, blogId: 1 }, 'property blogId should not exist'],
  ])('%j is 400: %s', async (body, message) => {
    const messages = await messagesOf(body);
    expect(messages.some((m) => m.startsWith(message))).toBe(true);
  });
});

import { globalPipesFor } from '../../../test/support/global-pipes';
import { NonEmptyBodyPipe } from '../../common/pipes/non-empty-body.pipe';
import { BLOG_LIMITS } from './blog-input.dto';
import { PatchBlogDto } from './patch-blog.dto';

/** The global pipes, then the route's `NonEmptyBodyPipe`, as Nest runs them for `@JsonBody(NonEmptyBodyPipe)`. */
const { runPipes, messagesOf } = globalPipesFor({ type: 'body', metatype: PatchBlogDto }, [new NonEmptyBodyPipe()]);

describe('PatchBlogDto through the global pipes and NonEmptyBodyPipe', () => {
  it.each([
    [{ title: 'New' }],
    [{ content: 'Only the text' }],
    [{ author: 'Bob' }],
    [{ title: 'x', author: 'y' }],
    [{ title: 't', content: 'c', author: 'a' }],
  ])('passes %p as a PatchBlogDto with exactly these fields', async (body) => {
    const result = await runPipes({ ...body });

    expect(result).toBeInstanceOf(PatchBlogDto);
    expect(result).toEqual(body);
    expect(Object.keys(result as object).sort()).toEqual(Object.keys(body).sort());
  });

  it.each([
    ['title', 'x'.repeat(BLOG_LIMITS.title.max + 1)],
    ['author', ''],
    ['content', ' \n '],
    ['title', 'a\u0000b'],
    ['author', 5],
    ['content', ['c']],
  ])('applies create’s rules to a given field: %s = %p is 400 naming it', async (field, value) => {
    const messages = await messagesOf({ [field]: value });

    expect(messages.some((m) => m.startsWith(field))).toBe(true);
  });

  it.each(['title', 'content', 'author'])('rejects %s: null (no field may be removed) naming it', async (field) => {
    await expect(messagesOf({ [field]: null })).resolves.toEqual([`${field} should not be null or undefined`]);
  });

  it('rejects null beside a valid field', async () => {
    await expect(messagesOf({ title: 'ok', author: null })).resolves.toEqual([
      'author should not be null or undefined',
    ]);
  });

  it('rejects {} naming the fields it may give', async () => {
    await expect(messagesOf({})).resolves.toEqual([
      'request body must give at least one of title, content, author, status, publishedAt, slug, tags',
    ]);
  });

  it.each([
    ['id', 1],
    ['ownerSub', 'mallory'],
    ['createdAt', '2020-01-01T00:00:00.000Z'],
  ])('rejects the unknown property %s naming it, also beside a valid field', async (key, value) => {
    await expect(messagesOf({ [key]: value })).resolves.toContain(`property ${key} should not exist`);
    await expect(messagesOf({ title: 't', [key]: value })).resolves.toContain(`property ${key} should not exist`);
  });
});

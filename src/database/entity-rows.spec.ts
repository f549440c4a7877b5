import { Blog } from '../blogs/blog.entity';
import { Comment } from '../comments/comment.entity';
import { rowMapper, selectedColumns } from './entity-rows';

describe('rowMapper', () => {
  const commentOf = rowMapper(Comment);
  const row = { id: 41, blog_id: 7, author: 'Bob', body: 'Nice post.', owner_sub: 'bob', blog_owner_sub: 'alice' };

  it('makes the entity from the row by column name, and takes nothing else', () => {
    const createdAt = new Date('2026-11-28T09:00:00.000Z');
    const comment = commentOf({ ...row, created_at: createdAt });
    expect(comment).toStrictEqual(
      Object.assign(new Comment(), {
        id: 41,
        blogId: 7,
        author: 'Bob',
        body: 'Nice post.',
        ownerSub: 'bob',
        createdAt,
      }),
    );
  });

  it.each([
    ['text (a JSON payload)', '2026-11-28T09:00:00.000Z', new Date('2026-11-28T09:00:00.000Z')],
    ['null', null, null],
    ['absent', undefined, undefined],
  ])('reads a timestamp given as %s', (_name, value, expected) => {
    expect(commentOf({ ...row, created_at: value }).createdAt).toEqual(expected);
  });

  it('leaves text that is not a timestamp column as it is', () => {
    expect(commentOf({ ...row, body: '2026-11-28T09:00:00.000Z' }).body).toBe('2026-11-28T09:00:00.000Z');
  });
});

describe('selectedColumns', () => {
  it.each([
    [Comment, 'c', 'c."id", c."blog_id", c."author", c."body", c."owner_sub", c."created_at"'],
    [
      Blog,
      'b',
      'b."id", b."title", b."content", b."author", b."owner_sub", b."created_at", b."updated_at", b."version", ' +
        'b."published_at", b."slug", b."tag_slugs"',
    ],
  ])('lists the columns of %p that a read selects, in declaration order', (entity, alias, expected) => {
    expect(selectedColumns(entity, alias)).toBe(expected);
  });
});

import { NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Principal } from '../auth/principal';
import { BlogAccess, BlogGoneError, BlogVisibility, whileBlogExists } from './blog-visibility';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const BLOGS: Record<'live' | 'draft' | 'scheduled', BlogAccess> = {
  live: { ownerSub: 'alice', publishedAt: NOW },
  draft: { ownerSub: 'alice', publishedAt: null },
  scheduled: { ownerSub: 'alice', publishedAt: new Date('2026-07-01T00:00:00.000Z') },
};
const READERS: Record<'nobody' | 'owner' | 'other' | 'admin', Principal | undefined> = {
  nobody: undefined,
  owner: { sub: 'alice', scopes: [] },
  other: { sub: 'bob', scopes: ['blogs:read'] },
  admin: { sub: 'root', scopes: ['blogs:admin'] },
};

describe('BlogVisibility', () => {
  let visibility: BlogVisibility;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ providers: [BlogVisibility] }).compile();
    visibility = moduleRef.get(BlogVisibility);
  });

  it.each([
    ['live', 'nobody', true],
    ['live', 'other', true],
    ['draft', 'nobody', false],
    ['draft', 'other', false],
    ['draft', 'owner', true],
    ['draft', 'admin', true],
    ['scheduled', 'other', false],
    ['scheduled', 'owner', true],
    ['scheduled', 'admin', true],
  ] as const)('a %s blog: %s may read it → %s', (blog, reader, expected) => {
    expect(visibility.mayRead(BLOGS[blog], READERS[reader], NOW)).toBe(expected);
  });

  it.each([
    ['admin', null],
    ['owner', 'alice'],
    ['other', 'bob'],
    ['nobody', undefined],
  ] as const)('the reader parameter of %s is %s', (reader, expected) => {
    expect(visibility.reader(READERS[reader])).toBe(expected);
  });

  it('writes the same three clauses in SQL, over the given row and parameters', () => {
    expect(visibility.condition('b', '$2', '$3')).toBe(
      `(COALESCE(b."published_at", 'infinity') <= $3 OR $2::text IS NULL OR b."owner_sub" = $2)`,
    );
  });

  it('gives a readable blog back, and refuses a hidden or missing one with the same 404', () => {
    expect(visibility.readable(BLOGS.draft, 7, READERS.owner, NOW)).toBe(BLOGS.draft);
    for (const blog of [BLOGS.draft, null]) {
      expect(() => visibility.readable(blog, 7, READERS.other, NOW)).toThrow(new NotFoundException('Blog 7 not found'));
    }
    expect(visibility.notFound('hello').message).toBe('Blog hello not found');
  });

  it('writes the live clause alone for statements that need a live blog', () => {
    expect(visibility.liveCondition('b', '$5')).toBe(`b."published_at" <= $5`);
    expect(visibility.condition('b', '$2', '$5')).toContain(`COALESCE(b."published_at", 'infinity') <= $5`);
  });

  it('reads the access of a row from its columns', () => {
    expect(visibility.columns('x')).toBe(`x."owner_sub" AS "blog_owner_sub", x."published_at" AS "blog_published_at"`);
    const row = { blog_owner_sub: 'alice', blog_published_at: '2026-06-01T00:00:00.000Z' };
    expect(visibility.accessOf(row)).toEqual(BLOGS.live);
    expect(visibility.accessOf({ blog_owner_sub: 'alice', blog_published_at: null })).toEqual(BLOGS.draft);
  });

  const foreignKey = Object.assign(new Error('fk'), { code: '23503', constraint: 'FK_x_blog_id' });

  it.each([
    ['the foreign key to the blog', foreignKey, BlogGoneError],
    ['another foreign key', { ...foreignKey, constraint: 'FK_other' }, Object],
    ['another error', new Error('other'), Error],
  ])('whileBlogExists turns a refusal by %s into BlogGoneError, and nothing else', async (_name, error, kind) => {
    const thrown: unknown = await whileBlogExists(7, ['FK_x_blog_id'], Promise.reject(error)).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(kind);
    expect(thrown instanceof BlogGoneError).toBe(kind === BlogGoneError);
  });

  it('goneAsNotFound answers a blog gone meanwhile as the missing blog, and passes other errors on', () => {
    expect(() => visibility.goneAsNotFound(7)(new BlogGoneError('gone'))).toThrow(
      new NotFoundException('Blog 7 not found'),
    );
    const other = new Error('other');
    expect(() => visibility.goneAsNotFound(7)(other)).toThrow(other);
  });

  it("gives an item back when its blog is readable, and refuses a hidden blog or none with the item's 404", () => {
    const wording = { title: 'Note', noun: 'note', adminScope: 'blogs:admin' };
    const item = { blog: BLOGS.draft, id: 3 };
    expect(visibility.visible(item, READERS.owner, NOW, wording, 3)).toBe(item);
    for (const found of [item, null]) {
      expect(() => visibility.visible(found, READERS.other, NOW, wording, 3)).toThrow(
        new NotFoundException('Note 3 not found'),
      );
    }
  });
});

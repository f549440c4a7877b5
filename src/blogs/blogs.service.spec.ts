import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  InternalServerErrorException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expectHttpError } from '../../test/support/http-error';
import type { Principal } from '../auth/principal';
import { parseEntityTagCondition } from '../common/http/entity-tag-condition';
import { cursorConfig, loadCursorConfig } from '../config/cursor.config';
import { CursorSigner } from '../common/paging/cursor-signer';
import { BlogListCursors } from './blog-list-cursor';
import { BlogVisibility } from './blog-visibility';
import type { Blog } from './blog.entity';
import { BlogsRepository, SlugTakenError } from './blogs.repository';
import { BlogListRequest, BlogsService } from './blogs.service';
import { BearerTokenException } from '../auth/bearer-token.exception';
import { TagsRepository } from '../tags/tags.repository';
import { TagsService } from '../tags/tags.service';
import type { BlogInputDto } from './dto/blog-input.dto';

type RepositoryMock = {
  readonly [
    K in 'findById' | 'findBySlug' | 'findPage' | 'findList' | 'searchTerms' | 'insert' | 'update' | 'delete'
  ]: jest.Mock;
};

function makeBlog(overrides: Partial<Blog> = {}): Blog {
  return {
    id: 7,
    title: 'Old title',
    content: 'Old content',
    author: 'Old author',
    ownerSub: 'alice',
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    updatedAt: new Date('2026-01-01T00:00:00.000Z'),
    version: 3,
    publishedAt: new Date('2026-01-01T00:00:00.000Z'),
    slug: 'old-title',
    tagSlugs: [],
    tags: [],
    ...overrides,
  };
}

const input: BlogInputDto = { title: 'New title', content: 'New content', author: 'New author' };
/** The service's clock in every test. */
const NOW = new Date('2026-06-01T00:00:00.000Z');
/** What the repository's update gets for `changes` without publishing fields or slug. */
const changesOf = (changes: Partial<BlogInputDto>) => ({
  title: undefined,
  content: undefined,
  author: undefined,
  slug: undefined,
  tags: undefined,
  ...changes,
  publication: { change: { kind: 'keep' } },
});
/** The write condition the repository gets. */
const condition = (owner: string | undefined, versions: object = { match: undefined, noneMatch: undefined }) => ({
  owner,
  versions,
  now: NOW,
});
const alice: Principal = { sub: 'alice', scopes: [] };
const bob: Principal = { sub: 'bob', scopes: [] };
const admin: Principal = { sub: 'root', scopes: ['blogs:read', 'blogs:admin'] };

describe('BlogsService', () => {
  let service: BlogsService;
  let repository: RepositoryMock;

  let cursors: BlogListCursors;

  beforeEach(async () => {
    repository = {
      findById: jest.fn(),
      findBySlug: jest.fn(),
      findPage: jest.fn(),
      findList: jest.fn(),
      searchTerms: jest.fn(),
      insert: jest.fn(),
      update: jest.fn(),
      delete: jest.fn(),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        BlogsService,
        BlogListCursors,
        CursorSigner,
        BlogVisibility,
        { provide: BlogsRepository, useValue: repository },
        TagsService,
        { provide: TagsRepository, useValue: {} },
        { provide: cursorConfig.KEY, useValue: loadCursorConfig({ CURSOR_SECRET: 'k'.repeat(32) }) },
      ],
    }).compile();
    service = moduleRef.get(BlogsService);
    cursors = moduleRef.get(BlogListCursors);
  });

  describe('list', () => {
    const request = (overrides: Partial<BlogListRequest> = {}): BlogListRequest => ({
      limit: 2,
      sort: '-createdAt',
      withContent: true,
      status: 'published',
      ...overrides,
    });
    const newest = makeBlog({ id: 2, createdAt: new Date('2026-01-02T00:00:00.000Z') });
    const older = makeBlog({ id: 1 });

    it('newest first, unfiltered, by offset: the one-statement page, a cursor after its last blog while more follow', async () => {
      repository.findPage.mockResolvedValueOnce({ items: [newest, older], total: 13 });

      const list = await service.list(request({ offset: 10 }), undefined, NOW);

      expect(repository.findPage).toHaveBeenCalledWith(2, 10, NOW);
      expect(repository.findList).not.toHaveBeenCalled();
      expect(list).toEqual({
        items: [newest, older],
        total: 13,
        totalRelation: 'eq',
        offset: 10,
        nextCursor: expect.any(String),
      });
      expect(cursors.decode(list.nextCursor ?? '', '-createdAt', { status: 'published' })).toEqual({
        id: 1,
        value: older.createdAt,
      });
    });

    it.each([
      ['the last page', 10, [newest, older], 12],
      ['an offset past the end', 20, [], 12],
      ['an empty list', 0, [], 0],
    ])('no next cursor on %s', async (_name, offset, items, total) => {
      repository.findPage.mockResolvedValueOnce({ items, total });

      await expect(service.list(request({ offset }), undefined, NOW)).resolves.toEqual({
        items,
        total,
        totalRelation: 'eq',
        offset,
        nextCursor: null,
      });
    });

    it('offset 0 by default', async () => {
      repository.findPage.mockResolvedValueOnce({ items: [], total: 0 });

      await expect(service.list(request(), undefined, NOW)).resolves.toMatchObject({ offset: 0 });
      expect(repository.findPage).toHaveBeenCalledWith(2, 0, NOW);
    });

    it('filters, another sort or no content: the list query with only the filters given', async () => {
      const createdAfter = new Date('2026-01-01T00:00:00.000Z');
      repository.searchTerms.mockResolvedValueOnce(['hello']);
      repository.findList.mockResolvedValueOnce({ items: [newest, older], total: 5, totalRelation: 'eq', more: true });

      const list = await service.list(
        request({
          author: 'Alice',
          q: 'hello',
          createdAfter,
          createdBefore: undefined,
          sort: 'title',
          withContent: false,
          client: 'ip:192.0.2.1',
        }),
        undefined,
        NOW,
      );

      const filters = { author: 'Alice', q: 'hello', createdAfter };
      expect(repository.searchTerms).toHaveBeenCalledWith('hello');
      expect(repository.findList).toHaveBeenCalledWith(
        {
          filters,
          sort: 'title',
          limit: 2,
          offset: 0,
          after: undefined,
          withContent: false,
          status: 'published',
          owner: undefined,
          now: NOW,
        },
        'ip:192.0.2.1',
      );
      expect(list).toMatchObject({ total: 5, offset: 0 });
      expect(cursors.decode(list.nextCursor ?? '', 'title', { ...filters, status: 'published' })).toEqual({
        id: 1,
        value: older.title,
      });
    });

    it('a cursor: the page after its position, offset null, and no next cursor when no more follow', async () => {
      const cursor = cursors.encode('id', { author: 'Alice', status: 'published' }, { id: 40 });
      repository.findList.mockResolvedValueOnce({ items: [older], total: 5, totalRelation: 'eq', more: false });

      await expect(service.list(request({ author: 'Alice', sort: 'id', cursor }), undefined, NOW)).resolves.toEqual({
        items: [older],
        total: 5,
        totalRelation: 'eq',
        offset: null,
        nextCursor: null,
      });
      expect(repository.findList).toHaveBeenCalledWith(
        expect.objectContaining({ filters: { author: 'Alice' }, sort: 'id', offset: 0, after: { id: 40 } }),
        undefined,
      );
    });

    it('an unfiltered cursor walk newest first also goes through the list query', async () => {
      const cursor = cursors.encode('-createdAt', { status: 'published' }, { id: 3, value: newest.createdAt });
      repository.findList.mockResolvedValueOnce({ items: [older], total: 3, totalRelation: 'eq', more: false });

      await service.list(request({ cursor }), undefined, NOW);

      expect(repository.findPage).not.toHaveBeenCalled();
      expect(repository.findList).toHaveBeenCalledWith(
        expect.objectContaining({ filters: {}, after: { id: 3, value: newest.createdAt } }),
        undefined,
      );
    });

    it.each<[string, string[], string]>([
      ['without a word', [], 'q must contain at least one word'],
      ['of 17 words', Array.from({ length: 17 }, (_, i) => `w${i}`), 'q must contain at most 16 words'],
      ['naming a word twice', ['a', 'b', 'a'], 'q must not contain a word to search for more than once'],
    ])('q %s: 400 naming q, before any list query', async (_name, terms, message) => {
      repository.searchTerms.mockResolvedValueOnce(terms);

      const error: unknown = await service.list(request({ q: 'x' }), undefined, NOW).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BadRequestException);
      expect(JSON.stringify((error as BadRequestException).getResponse())).toContain(message);
      expect(repository.findList).not.toHaveBeenCalled();
    });

    it('q of 16 distinct words is searched, and a total past the cap is passed on as gte', async () => {
      repository.searchTerms.mockResolvedValueOnce(Array.from({ length: 16 }, (_, i) => `w${i}`));
      repository.findList.mockResolvedValueOnce({ items: [older], total: 10_000, totalRelation: 'gte', more: true });

      await expect(service.list(request({ q: 'x' }), undefined, NOW)).resolves.toMatchObject({
        total: 10_000,
        totalRelation: 'gte',
      });
    });

    it('a cursor of another sort or other filters: 400 naming cursor', async () => {
      const cursor = cursors.encode('title', { status: 'published' }, { id: 3, value: 'x' });

      await expect(service.list(request({ sort: '-title', cursor }), undefined, NOW)).rejects.toThrow(
        BadRequestException,
      );
      await expect(service.list(request({ sort: 'title', author: 'Bob', cursor }), undefined, NOW)).rejects.toThrow(
        BadRequestException,
      );
      expect(repository.findList).not.toHaveBeenCalled();
    });

    it('propagates repository errors', async () => {
      repository.findPage.mockRejectedValueOnce(new Error('connection lost'));
      await expect(service.list(request(), undefined, NOW)).rejects.toThrow('connection lost');
    });
  });

  describe('findOne', () => {
    it('returns the blog with this id', async () => {
      const blog = makeBlog();
      repository.findById.mockResolvedValueOnce(blog);
      await expect(service.findOne(7, undefined, NOW)).resolves.toBe(blog);
      expect(repository.findById).toHaveBeenCalledWith(7, 'replica');
    });

    it('throws NotFoundException (404) naming the id when there is no such blog', async () => {
      repository.findById.mockResolvedValueOnce(null);
      await expectHttpError(service.findOne(42, undefined, NOW), NotFoundException, 404, 'Blog 42 not found');
    });
  });

  describe('visibility', () => {
    const draft = makeBlog({ publishedAt: null });
    const scheduled = makeBlog({ publishedAt: new Date(NOW.getTime() + 1) });
    const live = makeBlog({ publishedAt: NOW });

    it.each([
      ['a live blog to anyone', live, undefined, true],
      ['a draft to nobody', draft, undefined, false],
      ['a draft to another user', draft, bob, false],
      ['a draft to its owner', draft, alice, true],
      ['a draft to an admin', draft, admin, true],
      ['a scheduled blog to another user', scheduled, bob, false],
      ['a scheduled blog to its owner', scheduled, alice, true],
    ])('findOne shows %s: %j', async (_name, blog, principal, visible) => {
      repository.findById.mockResolvedValueOnce(blog);
      const found = service.findOne(7, principal, NOW);
      if (visible) await expect(found).resolves.toBe(blog);
      else await expectHttpError(found, NotFoundException, 404, 'Blog 7 not found');
    });

    it('findBySlug: the current slug is not moved, an earlier one is', async () => {
      repository.findBySlug.mockResolvedValue(live);
      await expect(service.findBySlug('old-title', undefined, NOW)).resolves.toEqual({ blog: live, moved: false });
      await expect(service.findBySlug('older-title', undefined, NOW)).resolves.toEqual({ blog: live, moved: true });
      expect(repository.findBySlug).toHaveBeenLastCalledWith('older-title');
    });

    it('findBySlug: 404 naming the slug for a hidden blog, as for an unknown slug', async () => {
      repository.findBySlug.mockResolvedValueOnce(draft).mockResolvedValueOnce(null);
      await expectHttpError(service.findBySlug('a', bob, NOW), NotFoundException, 404, 'Blog a not found');
      await expectHttpError(service.findBySlug('a', bob, NOW), NotFoundException, 404, 'Blog a not found');
    });

    it.each(['draft', 'scheduled', 'any'] as const)(
      'list status=%s without a principal: 401 and no query',
      async (status) => {
        await expect(
          service.list({ limit: 2, sort: 'id', withContent: true, status }, undefined, NOW),
        ).rejects.toBeInstanceOf(BearerTokenException);
        expect(repository.findList).not.toHaveBeenCalled();
      },
    );

    it.each([
      ['a user: own blogs only', alice, 'alice'],
      ['an admin: every owner', admin, undefined],
    ])('list status=draft for %s', async (_name, principal, owner) => {
      repository.findList.mockResolvedValueOnce({ items: [], total: 0, totalRelation: 'eq', more: false });
      await service.list({ limit: 2, sort: '-createdAt', withContent: true, status: 'draft' }, principal, NOW);
      expect(repository.findPage).not.toHaveBeenCalled();
      expect(repository.findList).toHaveBeenCalledWith(
        expect.objectContaining({ status: 'draft', owner, now: NOW }),
        undefined,
      );
    });

    it('a cursor is bound to the status', async () => {
      const cursor = cursors.encode('id', { status: 'draft' }, { id: 4 });
      await expect(
        service.list({ limit: 2, sort: 'id', withContent: true, status: 'any', cursor }, alice, NOW),
      ).rejects.toThrow(BadRequestException);
    });
  });

  describe('create', () => {
    it('inserts the input owned by the given sub and returns the stored blog', async () => {
      const stored = makeBlog({ id: 9, ...input, ownerSub: 'alice' });
      repository.insert.mockResolvedValueOnce(stored);
      await expect(service.create(input, 'alice', NOW)).resolves.toBe(stored);
      expect(repository.insert).toHaveBeenCalledWith({
        ...input,
        ownerSub: 'alice',
        publishedAt: NOW,
        slug: { value: 'new-title', explicit: false },
        tags: { slugs: [], names: [] },
      });
    });

    it.each([
      ['a draft', { status: 'draft' as const }, null],
      [
        'a scheduled blog',
        { status: 'scheduled' as const, publishedAt: new Date('2027-01-01T00:00:00Z') },
        new Date('2027-01-01T00:00:00Z'),
      ],
      ['a backdated blog', { publishedAt: new Date('2020-01-01T00:00:00Z') }, new Date('2020-01-01T00:00:00Z')],
    ])('stores %s with its publishedAt', async (_name, publishing, publishedAt) => {
      repository.insert.mockResolvedValueOnce(makeBlog());
      await service.create({ ...input, ...publishing }, 'alice', NOW);
      expect(repository.insert).toHaveBeenCalledWith(expect.objectContaining({ publishedAt }));
    });

    it.each([
      ['a title without letters or digits: blog', '🎉 !!', { value: 'blog', explicit: false }],
      ['an explicit slug as given', 'Any', { value: 'my-slug', explicit: true }],
    ])('slug from %s', async (_name, title, slug) => {
      repository.insert.mockResolvedValueOnce(makeBlog());
      const explicit = slug.explicit ? { slug: slug.value } : {};
      await service.create({ ...input, title, ...explicit }, 'alice', NOW);
      expect(repository.insert).toHaveBeenCalledWith(expect.objectContaining({ slug }));
    });

    it('an explicit slug taken: 409 naming slug', async () => {
      repository.insert.mockRejectedValueOnce(new SlugTakenError('taken'));
      await expectHttpError(
        service.create({ ...input, slug: 'taken' }, 'alice', NOW),
        ConflictException,
        409,
        "slug is another blog's slug: choose another one",
      );
    });

    it('broken publishing rules: 400 naming publishedAt, nothing inserted', async () => {
      await expect(service.create({ ...input, status: 'scheduled' }, 'alice', NOW)).rejects.toThrow(
        BadRequestException,
      );
      expect(repository.insert).not.toHaveBeenCalled();
    });

    it('propagates an insert failure', async () => {
      repository.insert.mockRejectedValueOnce(new Error('disk full'));
      await expect(service.create(input, 'alice', NOW)).rejects.toThrow('disk full');
    });
  });

  describe('update', () => {
    it('lets the owner update, requiring the owner in the UPDATE, and returns the stored row', async () => {
      const stored = makeBlog({ ...input, updatedAt: new Date('2026-03-03T03:03:03.333Z') });
      repository.update.mockResolvedValueOnce(stored);
      await expect(service.update(7, input, alice, NOW)).resolves.toBe(stored);
      expect(repository.update).toHaveBeenCalledWith(
        7,
        changesOf(input),
        condition('alice', { match: undefined, noneMatch: undefined }),
      );
      expect(repository.findById).not.toHaveBeenCalled();
    });

    it('lets a holder of blogs:admin update any blog (no owner required)', async () => {
      const stored = makeBlog({ ...input });
      repository.update.mockResolvedValueOnce(stored);
      await expect(service.update(7, input, admin, NOW)).resolves.toBe(stored);
      expect(repository.update).toHaveBeenCalledWith(
        7,
        changesOf(input),
        condition(undefined, { match: undefined, noneMatch: undefined }),
      );
    });

    it('throws NotFoundException (404) when the UPDATE changed nothing and the blog does not exist', async () => {
      repository.update.mockResolvedValueOnce(null);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.update(7, input, bob, NOW)).rejects.toThrow(NotFoundException);
    });

    it('throws ForbiddenException (403) when the UPDATE changed nothing and the blog is someone else’s', async () => {
      repository.update.mockResolvedValueOnce(null);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.update(7, input, bob, NOW)).rejects.toThrow(ForbiddenException);
      expect(repository.update).toHaveBeenCalledWith(
        7,
        changesOf(input),
        condition('bob', { match: undefined, noneMatch: undefined }),
      );
    });

    it.each([
      ['the owner', alice],
      ['an admin', admin],
    ])(
      'throws InternalServerErrorException (500) when the UPDATE changed nothing for %s of an existing blog',
      async (_who, principal) => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, principal, NOW)).rejects.toThrow(InternalServerErrorException);
      },
    );

    describe('preconditions (If-Match, If-None-Match)', () => {
      const ifMatch = (value: string) => ({ ifMatch: parseEntityTagCondition('If-Match', value) });
      const ifNoneMatch = (value: string) => ({ ifNoneMatch: parseEntityTagCondition('If-None-Match', value) });

      it('If-Match: the UPDATE may change only the versions its strong tags of this blog name', async () => {
        const stored = makeBlog({ ...input, version: 4 });
        repository.update.mockResolvedValueOnce(stored);
        await expect(service.update(7, input, alice, NOW, ifMatch('"7-2", "7-3", W/"7-5", "8-3", "x"'))).resolves.toBe(
          stored,
        );
        expect(repository.update).toHaveBeenCalledWith(
          7,
          changesOf(input),
          condition('alice', { match: ['2', '3'], noneMatch: undefined }),
        );
      });

      it('If-Match naming no version of this blog: the UPDATE may change none (an empty list, not "any")', async () => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, alice, NOW, ifMatch('W/"7-3", "8-3"'))).rejects.toThrow(
          PreconditionFailedException,
        );
        expect(repository.update).toHaveBeenCalledWith(
          7,
          changesOf(input),
          condition('alice', { match: [], noneMatch: undefined }),
        );
      });

      it('If-Match: * puts no condition on the version', async () => {
        repository.update.mockResolvedValueOnce(makeBlog());
        await service.update(7, input, alice, NOW, ifMatch('*'));
        expect(repository.update).toHaveBeenCalledWith(
          7,
          changesOf(input),
          condition('alice', { match: undefined, noneMatch: undefined }),
        );
      });

      it('If-None-Match: the UPDATE excludes the versions its tags (weak or strong) name', async () => {
        repository.update.mockResolvedValueOnce(makeBlog());
        await service.update(7, input, alice, NOW, ifNoneMatch('"7-1", W/"7-2", "9-3"'));
        expect(repository.update).toHaveBeenCalledWith(
          7,
          changesOf(input),
          condition('alice', { match: undefined, noneMatch: ['1', '2'] }),
        );
      });

      it('If-None-Match: * → 412 for an existing blog without any UPDATE', async () => {
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, alice, NOW, ifNoneMatch('*'))).rejects.toThrow(
          PreconditionFailedException,
        );
        expect(repository.update).not.toHaveBeenCalled();
      });

      it('no row changed with a precondition: 412 naming the blog, when it exists and the principal may update it', async () => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expectHttpError(
          service.update(7, input, admin, NOW, ifMatch('"7-2"')),
          PreconditionFailedException,
          412,
          'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
        );
      });

      it('a write refused for a precondition that holds again when read (a concurrent write came between): 412, not 500', async () => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog({ version: 6 }));
        await expect(service.update(7, input, alice, NOW, ifNoneMatch('"7-5"'))).rejects.toThrow(
          PreconditionFailedException,
        );
        repository.delete.mockResolvedValueOnce(false);
        repository.findById.mockResolvedValueOnce(makeBlog({ version: 6 }));
        await expect(service.remove(7, alice, NOW, ifNoneMatch('"7-5"'))).rejects.toThrow(PreconditionFailedException);
      });

      it('404 and 403 come before 412', async () => {
        repository.update.mockResolvedValue(null);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, input, alice, NOW, ifMatch('"7-2"'))).rejects.toThrow(NotFoundException);
        repository.findById.mockResolvedValueOnce(makeBlog({ ownerSub: 'alice' }));
        await expect(service.update(7, input, bob, NOW, ifMatch('"7-2"'))).rejects.toThrow(ForbiddenException);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, input, alice, NOW, ifNoneMatch('*'))).rejects.toThrow(NotFoundException);
      });
    });

    describe('publishing rules on the stored blog', () => {
      it('hands the change and its requirement to the one UPDATE', async () => {
        repository.update.mockResolvedValueOnce(makeBlog());
        await service.update(7, { status: 'scheduled' }, alice, NOW);
        expect(repository.update).toHaveBeenCalledWith(
          7,
          expect.objectContaining({ publication: { change: { kind: 'keep' }, requirement: 'scheduled' } }),
          condition('alice'),
        );
      });

      it('a requirement the blog does not meet: 400 naming publishedAt, after 404, 403 and 412', async () => {
        repository.update.mockResolvedValue(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expectHttpError(service.update(7, { status: 'scheduled' }, alice, NOW), BadRequestException, 400, [
          'publishedAt is required when status is scheduled, unless the blog is scheduled already',
        ]);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, { status: 'scheduled' }, bob, NOW)).rejects.toThrow(ForbiddenException);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(
          service.update(7, { status: 'scheduled' }, alice, NOW, {
            ifMatch: parseEntityTagCondition('If-Match', '"7-2"'),
          }),
        ).rejects.toThrow(PreconditionFailedException);
      });

      it('a scheduled blog is 412 for If-Match with the tag of its version alone', async () => {
        repository.update.mockResolvedValue(null);
        const scheduled = makeBlog({ publishedAt: new Date(NOW.getTime() + 60_000) });
        repository.findById.mockResolvedValueOnce(scheduled);
        await expect(
          service.update(7, { status: 'draft' }, alice, NOW, { ifMatch: parseEntityTagCondition('If-Match', '"7-3"') }),
        ).rejects.toThrow(PreconditionFailedException);
        expect(repository.update).toHaveBeenCalledWith(
          7,
          expect.anything(),
          condition('alice', { match: ['3'], noneMatch: undefined }),
        );
      });

      it('a slug taken by another blog: 409', async () => {
        repository.update.mockRejectedValueOnce(new SlugTakenError('taken'));
        await expect(service.update(7, { slug: 'taken' }, alice, NOW)).rejects.toThrow(ConflictException);
      });
    });

    it('propagates a failure of the UPDATE', async () => {
      repository.update.mockRejectedValueOnce(new Error('deadlock'));
      await expect(service.update(7, input, alice, NOW)).rejects.toThrow('deadlock');
    });

    describe('partial changes (PATCH)', () => {
      it.each([[{ title: 'Only the title' }], [{ content: 'c', author: 'a' }]])(
        'hands exactly the given fields %p to the one UPDATE and returns the stored row',
        async (changes) => {
          const stored = makeBlog({ ...changes, version: 4 });
          repository.update.mockResolvedValueOnce(stored);
          await expect(service.update(7, changes, alice, NOW)).resolves.toBe(stored);
          expect(repository.update).toHaveBeenCalledWith(
            7,
            changesOf(changes),
            condition('alice', {
              match: undefined,
              noneMatch: undefined,
            }),
          );
          expect(repository.findById).not.toHaveBeenCalled();
        },
      );

      it('chooses 404, 403 and 412 as for a replacement', async () => {
        const changes = { author: 'Mallory' };
        repository.update.mockResolvedValue(null);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, changes, alice, NOW)).rejects.toThrow(NotFoundException);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, changes, bob, NOW)).rejects.toThrow(ForbiddenException);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(
          service.update(7, changes, alice, NOW, { ifMatch: parseEntityTagCondition('If-Match', '"7-2"') }),
        ).rejects.toThrow(PreconditionFailedException);
      });
    });
  });

  describe('remove', () => {
    const ifMatch = (value: string) => ({ ifMatch: parseEntityTagCondition('If-Match', value) });
    const ifNoneMatch = (value: string) => ({ ifNoneMatch: parseEntityTagCondition('If-None-Match', value) });

    it('lets the owner delete, requiring the owner in the DELETE, without reading the blog', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await expect(service.remove(7, alice, NOW)).resolves.toBeUndefined();
      expect(repository.delete).toHaveBeenCalledWith(7, condition('alice', { match: undefined, noneMatch: undefined }));
      expect(repository.findById).not.toHaveBeenCalled();
    });

    it('lets a holder of blogs:admin delete any blog (no owner required)', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await expect(service.remove(7, admin, NOW)).resolves.toBeUndefined();
      expect(repository.delete).toHaveBeenCalledWith(
        7,
        condition(undefined, { match: undefined, noneMatch: undefined }),
      );
    });

    it.each([['blogs:administrator'], ['blogs:admin:extra'], ['BLOGS:ADMIN'], ['blogs'], ['admin']])(
      'treats the look-alike scope %s as no admin scope: the DELETE requires its sub as owner',
      async (scope) => {
        repository.delete.mockResolvedValueOnce(true);
        await service.remove(7, { sub: 'bob', scopes: [scope] }, NOW);
        expect(repository.delete).toHaveBeenCalledWith(7, condition('bob'));
      },
    );

    it('throws NotFoundException (404) naming the id when the DELETE deleted nothing and the blog does not exist', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(null);
      await expectHttpError(service.remove(42, alice, NOW), NotFoundException, 404, 'Blog 42 not found');
      expect(repository.findById).toHaveBeenCalledWith(42, 'primary');
    });

    it('throws ForbiddenException (403) saying who may delete, when the blog is someone else’s', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expectHttpError(
        service.remove(7, bob, NOW),
        ForbiddenException,
        403,
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may delete it',
      );
      expect(repository.delete).toHaveBeenCalledWith(7, condition('bob', { match: undefined, noneMatch: undefined }));
    });

    it.each([
      ['the owner', alice],
      ['an admin', admin],
    ])(
      'throws InternalServerErrorException (500) when nothing was deleted for %s of an existing blog',
      async (_who, principal) => {
        repository.delete.mockResolvedValueOnce(false);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expectHttpError(
          service.remove(7, principal, NOW),
          InternalServerErrorException,
          500,
          'The blog was not deleted',
        );
      },
    );

    it('If-Match: the DELETE may remove only the versions its strong tags of this blog name', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await service.remove(7, alice, NOW, ifMatch('"7-3", W/"7-4", "8-3"'));
      expect(repository.delete).toHaveBeenCalledWith(7, condition('alice', { match: ['3'], noneMatch: undefined }));
    });

    it('If-Match: * puts no condition on the version; If-None-Match excludes the versions it names', async () => {
      repository.delete.mockResolvedValue(true);
      await service.remove(7, alice, NOW, ifMatch('*'));
      expect(repository.delete).toHaveBeenLastCalledWith(
        7,
        condition('alice', { match: undefined, noneMatch: undefined }),
      );
      await service.remove(7, alice, NOW, ifNoneMatch('W/"7-1", "7-2"'));
      expect(repository.delete).toHaveBeenLastCalledWith(
        7,
        condition('alice', { match: undefined, noneMatch: ['1', '2'] }),
      );
    });

    it('If-None-Match: * → 412 for an existing blog without any DELETE', async () => {
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.remove(7, alice, NOW, ifNoneMatch('*'))).rejects.toThrow(PreconditionFailedException);
      expect(repository.delete).not.toHaveBeenCalled();
    });

    it('a precondition that does not hold: 412 naming the blog, when it exists and the principal may delete it', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expectHttpError(
        service.remove(7, admin, NOW, ifMatch('"7-2"')),
        PreconditionFailedException,
        412,
        'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
      );
    });

    it('404 and 403 come before 412', async () => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.remove(7, alice, NOW, ifMatch('"7-2"'))).rejects.toThrow(NotFoundException);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.remove(7, bob, NOW, ifMatch('"7-2"'))).rejects.toThrow(ForbiddenException);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.remove(7, alice, NOW, ifNoneMatch('*'))).rejects.toThrow(NotFoundException);
    });

    it('propagates a failure of the DELETE', async () => {
      repository.delete.mockRejectedValueOnce(new Error('connection lost'));
      await expect(service.remove(7, alice, NOW)).rejects.toThrow('connection lost');
      expect(repository.findById).not.toHaveBeenCalled();
    });
  });
});

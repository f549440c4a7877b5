import {
  BadRequestException,
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
import type { Blog } from './blog.entity';
import { BlogsRepository } from './blogs.repository';
import { BlogListRequest, BlogsService, requiredOwner } from './blogs.service';
import type { BlogInputDto } from './dto/blog-input.dto';

type RepositoryMock = {
  readonly [K in 'findById' | 'findPage' | 'findList' | 'isSearchable' | 'insert' | 'update' | 'delete']: jest.Mock;
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
    ...overrides,
  };
}

const input: BlogInputDto = { title: 'New title', content: 'New content', author: 'New author' };
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
      findPage: jest.fn(),
      findList: jest.fn(),
      isSearchable: jest.fn(),
      insert: jest.fn(),
      update: jest.fn(),
      delete: jest.fn(),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        BlogsService,
        BlogListCursors,
        CursorSigner,
        { provide: BlogsRepository, useValue: repository },
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
      ...overrides,
    });
    const newest = makeBlog({ id: 2, createdAt: new Date('2026-01-02T00:00:00.000Z') });
    const older = makeBlog({ id: 1 });

    it('newest first, unfiltered, by offset: the one-statement page, a cursor after its last blog while more follow', async () => {
      repository.findPage.mockResolvedValueOnce({ items: [newest, older], total: 13 });

      const list = await service.list(request({ offset: 10 }));

      expect(repository.findPage).toHaveBeenCalledWith(2, 10);
      expect(repository.findList).not.toHaveBeenCalled();
      expect(list).toEqual({ items: [newest, older], total: 13, offset: 10, nextCursor: expect.any(String) });
      expect(cursors.decode(list.nextCursor ?? '', '-createdAt', {})).toEqual({ id: 1, value: older.createdAt });
    });

    it.each([
      ['the last page', 10, [newest, older], 12],
      ['an offset past the end', 20, [], 12],
      ['an empty list', 0, [], 0],
    ])('no next cursor on %s', async (_name, offset, items, total) => {
      repository.findPage.mockResolvedValueOnce({ items, total });

      await expect(service.list(request({ offset }))).resolves.toEqual({ items, total, offset, nextCursor: null });
    });

    it('offset 0 by default', async () => {
      repository.findPage.mockResolvedValueOnce({ items: [], total: 0 });

      await expect(service.list(request())).resolves.toMatchObject({ offset: 0 });
      expect(repository.findPage).toHaveBeenCalledWith(2, 0);
    });

    it('filters, another sort or no content: the list query with only the filters given', async () => {
      const createdAfter = new Date('2026-01-01T00:00:00.000Z');
      repository.isSearchable.mockResolvedValueOnce(true);
      repository.findList.mockResolvedValueOnce({ items: [newest, older], total: 5, more: true });

      const list = await service.list(
        request({
          author: 'Alice',
          q: 'hello',
          createdAfter,
          createdBefore: undefined,
          sort: 'title',
          withContent: false,
        }),
      );

      const filters = { author: 'Alice', q: 'hello', createdAfter };
      expect(repository.isSearchable).toHaveBeenCalledWith('hello');
      expect(repository.findList).toHaveBeenCalledWith({
        filters,
        sort: 'title',
        limit: 2,
        offset: 0,
        after: undefined,
        withContent: false,
      });
      expect(list).toMatchObject({ total: 5, offset: 0 });
      expect(cursors.decode(list.nextCursor ?? '', 'title', filters)).toEqual({ id: 1, value: older.title });
    });

    it('a cursor: the page after its position, offset null, and no next cursor when no more follow', async () => {
      const cursor = cursors.encode('id', { author: 'Alice' }, { id: 40 });
      repository.findList.mockResolvedValueOnce({ items: [older], total: 5, more: false });

      await expect(service.list(request({ author: 'Alice', sort: 'id', cursor }))).resolves.toEqual({
        items: [older],
        total: 5,
        offset: null,
        nextCursor: null,
      });
      expect(repository.findList).toHaveBeenCalledWith(
        expect.objectContaining({ filters: { author: 'Alice' }, sort: 'id', offset: 0, after: { id: 40 } }),
      );
    });

    it('an unfiltered cursor walk newest first also goes through the list query', async () => {
      const cursor = cursors.encode('-createdAt', {}, { id: 3, value: newest.createdAt });
      repository.findList.mockResolvedValueOnce({ items: [older], total: 3, more: false });

      await service.list(request({ cursor }));

      expect(repository.findPage).not.toHaveBeenCalled();
      expect(repository.findList).toHaveBeenCalledWith(
        expect.objectContaining({ filters: {}, after: { id: 3, value: newest.createdAt } }),
      );
    });

    it('q without a word: 400 naming q, before any list query', async () => {
      repository.isSearchable.mockResolvedValueOnce(false);

      const error: unknown = await service.list(request({ q: '!!!' })).catch((e: unknown) => e);

      expect(error).toBeInstanceOf(BadRequestException);
      expect(JSON.stringify((error as BadRequestException).getResponse())).toContain('q must contain');
      expect(repository.findList).not.toHaveBeenCalled();
    });

    it('a cursor of another sort or other filters: 400 naming cursor', async () => {
      const cursor = cursors.encode('title', {}, { id: 3, value: 'x' });

      await expect(service.list(request({ sort: '-title', cursor }))).rejects.toThrow(BadRequestException);
      await expect(service.list(request({ sort: 'title', author: 'Bob', cursor }))).rejects.toThrow(
        BadRequestException,
      );
      expect(repository.findList).not.toHaveBeenCalled();
    });

    it('propagates repository errors', async () => {
      repository.findPage.mockRejectedValueOnce(new Error('connection lost'));
      await expect(service.list(request())).rejects.toThrow('connection lost');
    });
  });

  describe('findOne', () => {
    it('returns the blog with this id', async () => {
      const blog = makeBlog();
      repository.findById.mockResolvedValueOnce(blog);
      await expect(service.findOne(7)).resolves.toBe(blog);
      expect(repository.findById).toHaveBeenCalledWith(7);
    });

    it('throws NotFoundException (404) naming the id when there is no such blog', async () => {
      repository.findById.mockResolvedValueOnce(null);
      await expectHttpError(service.findOne(42), NotFoundException, 404, 'Blog 42 not found');
    });
  });

  describe('create', () => {
    it('inserts the input owned by the given sub and returns the stored blog', async () => {
      const stored = makeBlog({ id: 9, ...input, ownerSub: 'alice' });
      repository.insert.mockResolvedValueOnce(stored);
      await expect(service.create(input, 'alice')).resolves.toBe(stored);
      expect(repository.insert).toHaveBeenCalledWith(input, 'alice');
    });

    it('propagates an insert failure', async () => {
      repository.insert.mockRejectedValueOnce(new Error('disk full'));
      await expect(service.create(input, 'alice')).rejects.toThrow('disk full');
    });
  });

  describe('update', () => {
    it('lets the owner update, requiring the owner in the UPDATE, and returns the stored row', async () => {
      const stored = makeBlog({ ...input, updatedAt: new Date('2026-03-03T03:03:03.333Z') });
      repository.update.mockResolvedValueOnce(stored);
      await expect(service.update(7, input, alice)).resolves.toBe(stored);
      expect(repository.update).toHaveBeenCalledWith(7, input, 'alice', { match: undefined, noneMatch: undefined });
      expect(repository.findById).not.toHaveBeenCalled();
    });

    it('lets a holder of blogs:admin update any blog (no owner required)', async () => {
      const stored = makeBlog({ ...input });
      repository.update.mockResolvedValueOnce(stored);
      await expect(service.update(7, input, admin)).resolves.toBe(stored);
      expect(repository.update).toHaveBeenCalledWith(7, input, undefined, { match: undefined, noneMatch: undefined });
    });

    it('throws NotFoundException (404) when the UPDATE changed nothing and the blog does not exist', async () => {
      repository.update.mockResolvedValueOnce(null);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.update(7, input, bob)).rejects.toThrow(NotFoundException);
    });

    it('throws ForbiddenException (403) when the UPDATE changed nothing and the blog is someone else’s', async () => {
      repository.update.mockResolvedValueOnce(null);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.update(7, input, bob)).rejects.toThrow(ForbiddenException);
      expect(repository.update).toHaveBeenCalledWith(7, input, 'bob', { match: undefined, noneMatch: undefined });
    });

    it.each([
      ['the owner', alice],
      ['an admin', admin],
    ])(
      'throws InternalServerErrorException (500) when the UPDATE changed nothing for %s of an existing blog',
      async (_who, principal) => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, principal)).rejects.toThrow(InternalServerErrorException);
      },
    );

    describe('preconditions (If-Match, If-None-Match)', () => {
      const ifMatch = (value: string) => ({ ifMatch: parseEntityTagCondition('If-Match', value) });
      const ifNoneMatch = (value: string) => ({ ifNoneMatch: parseEntityTagCondition('If-None-Match', value) });

      it('If-Match: the UPDATE may change only the versions its strong tags of this blog name', async () => {
        const stored = makeBlog({ ...input, version: 4 });
        repository.update.mockResolvedValueOnce(stored);
        await expect(service.update(7, input, alice, ifMatch('"7-2", "7-3", W/"7-5", "8-3", "x"'))).resolves.toBe(
          stored,
        );
        expect(repository.update).toHaveBeenCalledWith(7, input, 'alice', { match: [2, 3], noneMatch: undefined });
      });

      it('If-Match naming no version of this blog: the UPDATE may change none (an empty list, not "any")', async () => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, alice, ifMatch('W/"7-3", "8-3"'))).rejects.toThrow(
          PreconditionFailedException,
        );
        expect(repository.update).toHaveBeenCalledWith(7, input, 'alice', { match: [], noneMatch: undefined });
      });

      it('If-Match: * puts no condition on the version', async () => {
        repository.update.mockResolvedValueOnce(makeBlog());
        await service.update(7, input, alice, ifMatch('*'));
        expect(repository.update).toHaveBeenCalledWith(7, input, 'alice', { match: undefined, noneMatch: undefined });
      });

      it('If-None-Match: the UPDATE excludes the versions its tags (weak or strong) name', async () => {
        repository.update.mockResolvedValueOnce(makeBlog());
        await service.update(7, input, alice, ifNoneMatch('"7-1", W/"7-2", "9-3"'));
        expect(repository.update).toHaveBeenCalledWith(7, input, 'alice', { match: undefined, noneMatch: [1, 2] });
      });

      it('If-None-Match: * → 412 for an existing blog without any UPDATE', async () => {
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, input, alice, ifNoneMatch('*'))).rejects.toThrow(PreconditionFailedException);
        expect(repository.update).not.toHaveBeenCalled();
      });

      it('no row changed with a precondition: 412 naming the blog, when it exists and the principal may update it', async () => {
        repository.update.mockResolvedValueOnce(null);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expectHttpError(
          service.update(7, input, admin, ifMatch('"7-2"')),
          PreconditionFailedException,
          412,
          'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
        );
      });

      it('404 and 403 come before 412', async () => {
        repository.update.mockResolvedValue(null);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, input, alice, ifMatch('"7-2"'))).rejects.toThrow(NotFoundException);
        repository.findById.mockResolvedValueOnce(makeBlog({ ownerSub: 'alice' }));
        await expect(service.update(7, input, bob, ifMatch('"7-2"'))).rejects.toThrow(ForbiddenException);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, input, alice, ifNoneMatch('*'))).rejects.toThrow(NotFoundException);
      });
    });

    it('propagates a failure of the UPDATE', async () => {
      repository.update.mockRejectedValueOnce(new Error('deadlock'));
      await expect(service.update(7, input, alice)).rejects.toThrow('deadlock');
    });

    describe('partial changes (PATCH)', () => {
      it.each([[{ title: 'Only the title' }], [{ content: 'c', author: 'a' }]])(
        'hands exactly the given fields %p to the one UPDATE and returns the stored row',
        async (changes) => {
          const stored = makeBlog({ ...changes, version: 4 });
          repository.update.mockResolvedValueOnce(stored);
          await expect(service.update(7, changes, alice)).resolves.toBe(stored);
          expect(repository.update).toHaveBeenCalledWith(7, changes, 'alice', {
            match: undefined,
            noneMatch: undefined,
          });
          expect(repository.findById).not.toHaveBeenCalled();
        },
      );

      it('chooses 404, 403 and 412 as for a replacement', async () => {
        const changes = { author: 'Mallory' };
        repository.update.mockResolvedValue(null);
        repository.findById.mockResolvedValueOnce(null);
        await expect(service.update(7, changes, alice)).rejects.toThrow(NotFoundException);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(service.update(7, changes, bob)).rejects.toThrow(ForbiddenException);
        repository.findById.mockResolvedValueOnce(makeBlog());
        await expect(
          service.update(7, changes, alice, { ifMatch: parseEntityTagCondition('If-Match', '"7-2"') }),
        ).rejects.toThrow(PreconditionFailedException);
      });
    });
  });

  describe('remove', () => {
    const ifMatch = (value: string) => ({ ifMatch: parseEntityTagCondition('If-Match', value) });
    const ifNoneMatch = (value: string) => ({ ifNoneMatch: parseEntityTagCondition('If-None-Match', value) });

    it('lets the owner delete, requiring the owner in the DELETE, without reading the blog', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await expect(service.remove(7, alice)).resolves.toBeUndefined();
      expect(repository.delete).toHaveBeenCalledWith(7, 'alice', { match: undefined, noneMatch: undefined });
      expect(repository.findById).not.toHaveBeenCalled();
    });

    it('lets a holder of blogs:admin delete any blog (no owner required)', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await expect(service.remove(7, admin)).resolves.toBeUndefined();
      expect(repository.delete).toHaveBeenCalledWith(7, undefined, { match: undefined, noneMatch: undefined });
    });

    it('throws NotFoundException (404) naming the id when the DELETE deleted nothing and the blog does not exist', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(null);
      await expectHttpError(service.remove(42, alice), NotFoundException, 404, 'Blog 42 not found');
      expect(repository.findById).toHaveBeenCalledWith(42, 'primary');
    });

    it('throws ForbiddenException (403) saying who may delete, when the blog is someone else’s', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expectHttpError(
        service.remove(7, bob),
        ForbiddenException,
        403,
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may delete it',
      );
      expect(repository.delete).toHaveBeenCalledWith(7, 'bob', { match: undefined, noneMatch: undefined });
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
          service.remove(7, principal),
          InternalServerErrorException,
          500,
          'The blog was not deleted',
        );
      },
    );

    it('If-Match: the DELETE may remove only the versions its strong tags of this blog name', async () => {
      repository.delete.mockResolvedValueOnce(true);
      await service.remove(7, alice, ifMatch('"7-3", W/"7-4", "8-3"'));
      expect(repository.delete).toHaveBeenCalledWith(7, 'alice', { match: [3], noneMatch: undefined });
    });

    it('If-Match: * puts no condition on the version; If-None-Match excludes the versions it names', async () => {
      repository.delete.mockResolvedValue(true);
      await service.remove(7, alice, ifMatch('*'));
      expect(repository.delete).toHaveBeenLastCalledWith(7, 'alice', { match: undefined, noneMatch: undefined });
      await service.remove(7, alice, ifNoneMatch('W/"7-1", "7-2"'));
      expect(repository.delete).toHaveBeenLastCalledWith(7, 'alice', { match: undefined, noneMatch: [1, 2] });
    });

    it('If-None-Match: * → 412 for an existing blog without any DELETE', async () => {
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.remove(7, alice, ifNoneMatch('*'))).rejects.toThrow(PreconditionFailedException);
      expect(repository.delete).not.toHaveBeenCalled();
    });

    it('a precondition that does not hold: 412 naming the blog, when it exists and the principal may delete it', async () => {
      repository.delete.mockResolvedValueOnce(false);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expectHttpError(
        service.remove(7, admin, ifMatch('"7-2"')),
        PreconditionFailedException,
        412,
        'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
      );
    });

    it('404 and 403 come before 412', async () => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.remove(7, alice, ifMatch('"7-2"'))).rejects.toThrow(NotFoundException);
      repository.findById.mockResolvedValueOnce(makeBlog());
      await expect(service.remove(7, bob, ifMatch('"7-2"'))).rejects.toThrow(ForbiddenException);
      repository.findById.mockResolvedValueOnce(null);
      await expect(service.remove(7, alice, ifNoneMatch('*'))).rejects.toThrow(NotFoundException);
    });

    it('propagates a failure of the DELETE', async () => {
      repository.delete.mockRejectedValueOnce(new Error('connection lost'));
      await expect(service.remove(7, alice)).rejects.toThrow('connection lost');
      expect(repository.findById).not.toHaveBeenCalled();
    });
  });
});

describe('requiredOwner', () => {
  it('is the principal itself without scopes', () => {
    expect(requiredOwner(alice)).toBe('alice');
  });

  it('is nobody (any owner) for a holder of blogs:admin among other scopes', () => {
    expect(requiredOwner(admin)).toBeUndefined();
  });

  it.each([['blogs:administrator'], ['blogs:admin:extra'], ['BLOGS:ADMIN'], ['blogs'], ['admin']])(
    'treats the look-alike scope %s as no admin scope',
    (scope) => {
      expect(requiredOwner({ sub: 'bob', scopes: [scope] })).toBe('bob');
    },
  );
});

import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  InternalServerErrorException,
  NotFoundException,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expectHttpError } from '../../test/support/http-error';
import type { Principal } from '../auth/principal';
import { CursorSigner } from '../common/paging/cursor-signer';
import { cursorConfig, loadCursorConfig } from '../config/cursor.config';
import { BlogAccess, BlogGoneError, BlogVisibility } from '../blogs/blog-visibility';
import { CommentListCursors } from './comment-list-cursor';
import type { Comment } from './comment.entity';
import { CommentsRepository } from './comments.repository';
import { CommentsService } from './comments.service';

type RepositoryMock = { readonly [K in 'insert' | 'findById' | 'findPage' | 'delete']: jest.Mock };

/** The service's clock in every test. */
const NOW = new Date('2026-06-01T00:00:00.000Z');
const BEFORE = new Date('2026-05-01T00:00:00.000Z');
const AFTER = new Date('2026-07-01T00:00:00.000Z');

const alice: Principal = { sub: 'alice', scopes: [] };
const bob: Principal = { sub: 'bob', scopes: [] };
const eve: Principal = { sub: 'eve', scopes: [] };
const admin: Principal = { sub: 'root', scopes: ['blogs:admin'] };

/** Blogs of alice: live, draft, scheduled. */
const BLOGS: Record<'live' | 'draft' | 'scheduled', BlogAccess> = {
  live: { ownerSub: 'alice', publishedAt: BEFORE },
  draft: { ownerSub: 'alice', publishedAt: null },
  scheduled: { ownerSub: 'alice', publishedAt: AFTER },
};

function makeComment(overrides: Partial<Comment> = {}): Comment {
  return {
    id: 41,
    blogId: 17,
    author: 'Bob',
    body: 'Nice post.',
    ownerSub: 'bob',
    createdAt: new Date('2026-05-02T00:00:00.000Z'),
    ...overrides,
  };
}

describe('CommentsService', () => {
  let service: CommentsService;
  let repository: RepositoryMock;
  let cursors: CommentListCursors;

  beforeEach(async () => {
    repository = { insert: jest.fn(), findById: jest.fn(), findPage: jest.fn(), delete: jest.fn() };
    const moduleRef = await Test.createTestingModule({
      providers: [
        CommentsService,
        CommentListCursors,
        CursorSigner,
        BlogVisibility,
        { provide: CommentsRepository, useValue: repository },
        { provide: cursorConfig.KEY, useValue: loadCursorConfig({ CURSOR_SECRET: 'k'.repeat(32) }) },
      ],
    }).compile();
    service = moduleRef.get(CommentsService);
    cursors = moduleRef.get(CommentListCursors);
  });

  describe('create', () => {
    const input = { author: 'Bob', body: 'Nice post.' };

    it('stores the comment with the caller as owner and answers it', async () => {
      const stored = makeComment();
      repository.insert.mockResolvedValue({ blog: BLOGS.live, comment: stored });

      await expect(service.create(17, input, bob, NOW)).resolves.toBe(stored);
      expect(repository.insert).toHaveBeenCalledWith({ blogId: 17, ...input, ownerSub: 'bob' }, NOW);
    });

    it('a blog that does not exist is 404', async () => {
      repository.insert.mockResolvedValue({ blog: null, comment: null });
      await expectHttpError(service.create(17, input, bob, NOW), NotFoundException, 404, 'Blog 17 not found');
    });

    it('a blog deleted while the insert ran is 404', async () => {
      repository.insert.mockRejectedValue(new BlogGoneError('gone'));
      await expectHttpError(service.create(17, input, bob, NOW), NotFoundException, 404, 'Blog 17 not found');
    });

    it.each([
      ['draft', bob, 404],
      ['scheduled', bob, 404],
      ['draft', alice, 409],
      ['scheduled', alice, 409],
      ['draft', admin, 409],
      ['scheduled', admin, 409],
    ] as const)('a %s blog, for %j: %d', async (state, principal, status) => {
      repository.insert.mockResolvedValue({ blog: BLOGS[state], comment: null });
      if (status === 404) {
        await expectHttpError(service.create(17, input, principal, NOW), NotFoundException, 404, 'Blog 17 not found');
      } else {
        await expectHttpError(
          service.create(17, input, principal, NOW),
          ConflictException,
          409,
          'Blog 17 is not published: only a published blog takes comments',
        );
      }
    });

    it('passes other errors on', async () => {
      const error = new Error('database down');
      repository.insert.mockRejectedValue(error);
      await expect(service.create(17, input, bob, NOW)).rejects.toBe(error);
    });
  });

  describe('findOne', () => {
    it.each([
      ['live', undefined, true],
      ['live', eve, true],
      ['draft', undefined, false],
      ['draft', bob, false],
      ['draft', alice, true],
      ['draft', admin, true],
      ['scheduled', bob, false],
      ['scheduled', alice, true],
      ['scheduled', admin, true],
    ] as const)('a comment of a %s blog, for %j: seen %s', async (state, principal, seen) => {
      const comment = makeComment();
      repository.findById.mockResolvedValue({ comment, blog: BLOGS[state] });
      if (seen) await expect(service.findOne(41, principal, NOW)).resolves.toBe(comment);
      else await expectHttpError(service.findOne(41, principal, NOW), NotFoundException, 404, 'Comment 41 not found');
    });

    it('a missing comment is 404', async () => {
      repository.findById.mockResolvedValue(null);
      await expectHttpError(service.findOne(41, admin, NOW), NotFoundException, 404, 'Comment 41 not found');
    });
  });

  describe('list', () => {
    const page = (items: Comment[], more: boolean, blog: BlogAccess | null = BLOGS.live) => ({
      blog,
      items,
      total: 5,
      more,
    });

    it('answers the page, the total and a cursor after its last comment when more follow', async () => {
      const items = [makeComment({ id: 1 }), makeComment({ id: 2 })];
      repository.findPage.mockResolvedValue(page(items, true));

      const result = await service.list(17, { limit: 2, offset: 1 }, undefined, NOW);

      expect(repository.findPage).toHaveBeenCalledWith(17, { limit: 2, offset: 1, after: undefined });
      expect(result).toEqual({ items, total: 5, offset: 1, nextCursor: expect.any(String) });
      expect(cursors.decode(result.nextCursor!, 'createdAt', { blogId: 17 })).toEqual({
        id: 2,
        value: items[1].createdAt,
      });
    });

    it('continues after a cursor, offset null; no cursor on the last page', async () => {
      const cursor = cursors.encode('createdAt', { blogId: 17 }, { id: 2, value: new Date(1_000) });
      repository.findPage.mockResolvedValue(page([makeComment({ id: 3 })], false));

      const result = await service.list(17, { limit: 2, cursor }, undefined, NOW);

      expect(repository.findPage).toHaveBeenCalledWith(17, {
        limit: 2,
        offset: 0,
        after: { id: 2, value: new Date(1_000) },
      });
      expect(result).toMatchObject({ offset: null, nextCursor: null });
    });

    it("refuses another blog's cursor before reading", async () => {
      const cursor = cursors.encode('createdAt', { blogId: 18 }, { id: 2, value: new Date(1_000) });
      await expectHttpError(service.list(17, { limit: 2, cursor }, undefined, NOW), BadRequestException, 400, [
        "cursor was made for another blog's comments: use it with the blog it came from",
      ]);
      expect(repository.findPage).not.toHaveBeenCalled();
    });

    it.each([
      ['a missing blog', null, undefined],
      ['a draft, for another subject', BLOGS.draft, bob],
      ['a scheduled blog, anonymous', BLOGS.scheduled, undefined],
    ] as const)('%s is 404', async (_what, blog, principal) => {
      repository.findPage.mockResolvedValue(page([], false, blog));
      await expectHttpError(
        service.list(17, { limit: 2 }, principal, NOW),
        NotFoundException,
        404,
        'Blog 17 not found',
      );
    });
  });

  describe('remove', () => {
    it.each([
      ['the commenter', bob, 'bob'],
      ["the blog's owner", alice, 'alice'],
      ['an admin', admin, null],
    ] as const)('%s deletes as the reader %s', async (_who, principal, owner) => {
      repository.delete.mockResolvedValue(true);
      await service.remove(41, principal, NOW);
      expect(repository.delete).toHaveBeenCalledWith(41, owner, NOW);
      expect(repository.findById).not.toHaveBeenCalled();
    });

    it('another subject is 403 with who may', async () => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValue({ comment: makeComment(), blog: BLOGS.live });
      await expectHttpError(
        service.remove(41, eve, NOW),
        ForbiddenException,
        403,
        'Only the owner of this comment (the token subject that created it), the owner of its blog or a ' +
          'blogs:admin token may delete it',
      );
      expect(repository.findById).toHaveBeenCalledWith(41, 'primary');
    });

    it.each([
      ['a missing comment', null],
      ['a comment of a draft blog, for its commenter', { comment: makeComment(), blog: BLOGS.draft }],
    ])('%s is 404', async (_what, found) => {
      repository.delete.mockResolvedValue(false);
      repository.findById.mockResolvedValue(found);
      await expectHttpError(service.remove(41, bob, NOW), NotFoundException, 404, 'Comment 41 not found');
    });

    it('deletes again when the comment became deletable between the statements, and gives up with 500', async () => {
      repository.delete.mockResolvedValueOnce(false).mockResolvedValueOnce(true);
      repository.findById.mockResolvedValue({ comment: makeComment(), blog: BLOGS.live });
      await service.remove(41, bob, NOW);
      expect(repository.delete).toHaveBeenCalledTimes(2);

      repository.delete.mockResolvedValue(false);
      await expect(service.remove(41, bob, NOW)).rejects.toBeInstanceOf(InternalServerErrorException);
    });
  });
});

import {
  BadRequestException,
  ForbiddenException,
  NotFoundException,
  PreconditionFailedException,
} from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expectHttpError } from '../../test/support/http-error';
import type { Principal } from '../auth/principal';
import { BlogAccess, BlogVisibility } from '../blogs/blog-visibility';
import type { Blog } from '../blogs/blog.entity';
import { BlogsService } from '../blogs/blogs.service';
import { parseWritePreconditions } from '../common/http/entity-tag-condition';
import { CursorSigner } from '../common/paging/cursor-signer';
import { cursorConfig, loadCursorConfig } from '../config/cursor.config';
import { loadRevisionsConfig, revisionsConfig } from '../config/revisions.config';
import { RevisionListCursors } from './revision-list-cursor';
import { FullRevision, RevisionsRepository } from './revisions.repository';
import { RevisionsService } from './revisions.service';

type RepositoryMock = { readonly [K in 'setKept' | 'findPage' | 'findOne' | 'findToRestore']: jest.Mock };
type BlogsMock = { readonly [K in 'findOne' | 'update']: jest.Mock };

const NOW = new Date('2026-06-01T00:00:00.000Z');
const BEFORE = new Date('2026-05-01T00:00:00.000Z');

const alice: Principal = { sub: 'alice', scopes: [] };
const bob: Principal = { sub: 'bob', scopes: [] };
const admin: Principal = { sub: 'root', scopes: ['blogs:admin'] };

/** Blogs of alice: live and draft. */
const LIVE: BlogAccess = { ownerSub: 'alice', publishedAt: BEFORE };
const DRAFT: BlogAccess = { ownerSub: 'alice', publishedAt: null };

const REVISION: FullRevision = {
  version: 3,
  title: 'Old title',
  content: 'Old content',
  author: 'Alice',
  tags: ['NestJS'],
  createdAt: BEFORE,
  changed: ['title'],
};

const BLOG = { id: 7, version: 5, publishedAt: BEFORE } as Blog;

describe('RevisionsService', () => {
  // The doubles of the repository and of the blogs' service, their answers set by each test.
  const repository: RepositoryMock = {
    setKept: jest.fn(),
    findPage: jest.fn(),
    findOne: jest.fn(),
    findToRestore: jest.fn(),
  };
  const blogs: BlogsMock = { findOne: jest.fn(), update: jest.fn() };
  let service: RevisionsService;

  beforeEach(async () => {
    jest.resetAllMocks();
    const doubles = [
      { provide: RevisionsRepository, useValue: repository },
      { provide: BlogsService, useValue: blogs },
      { provide: cursorConfig.KEY, useValue: loadCursorConfig({ CURSOR_SECRET: 'k'.repeat(32) }) },
      { provide: revisionsConfig.KEY, useValue: loadRevisionsConfig({ REVISIONS_KEPT: '7' }) },
    ];
    const real = [RevisionsService, RevisionListCursors, CursorSigner, BlogVisibility];
    const moduleRef = await Test.createTestingModule({ providers: [...real, ...doubles] }).compile();
    service = moduleRef.get(RevisionsService);
  });

  it('tells the database how many revisions to keep when the application starts', async () => {
    await service.onApplicationBootstrap();
    expect(repository.setKept).toHaveBeenCalledWith(7);
  });

  describe('who may see revisions (list, read, restore alike)', () => {
    const calls: [string, (principal: Principal) => Promise<unknown>][] = [
      ['list', (principal) => service.list(7, { limit: 10 }, principal, NOW)],
      ['findOne', (principal) => service.findOne(7, 3, principal, NOW)],
      ['restore', (principal) => service.restore(7, 3, principal, NOW, {})],
    ];

    beforeEach(() => {
      blogs.update.mockResolvedValue(BLOG);
    });

    const answer = (blog: BlogAccess | null) => {
      const found = { blog, revision: REVISION, blogVersion: 4, current: false };
      repository.findPage.mockResolvedValue({ blog, items: [REVISION], total: 1, more: false });
      repository.findOne.mockResolvedValue(found);
      repository.findToRestore.mockResolvedValue(found);
    };

    it.each(calls)('%s: no blog is 404', async (_name, call) => {
      answer(null);
      await expectHttpError(call(alice), NotFoundException, 404, 'Blog 7 not found');
    });

    it.each(calls)("%s: another's draft is 404, as a read of the blog answers", async (_name, call) => {
      answer(DRAFT);
      await expectHttpError(call(bob), NotFoundException, 404, 'Blog 7 not found');
    });

    it.each(calls)("%s: another's live blog is 403", async (_name, call) => {
      answer(LIVE);
      await expectHttpError(
        call(bob),
        ForbiddenException,
        403,
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may read or restore ' +
          'its revisions',
      );
    });

    it.each(calls)('%s: the owner and an admin pass', async (_name, call) => {
      answer(DRAFT);
      await expect(call(alice)).resolves.toBeDefined();
      await expect(call(admin)).resolves.toBeDefined();
    });
  });

  describe('list', () => {
    it('reads the newest REVISIONS_KEPT and gives a cursor after the last when more follow', async () => {
      repository.findPage.mockResolvedValue({ blog: LIVE, items: [REVISION], total: 4, more: true });
      const page = await service.list(7, { limit: 1, offset: 2 }, alice, NOW);
      expect(repository.findPage).toHaveBeenCalledWith(7, 7, { limit: 1, offset: 2, after: undefined });
      expect(page).toMatchObject({ items: [REVISION], total: 4, offset: 2 });

      repository.findPage.mockResolvedValue({ blog: LIVE, items: [], total: 4, more: false });
      const next = await service.list(7, { limit: 1, cursor: page.nextCursor as string }, alice, NOW);
      expect(repository.findPage).toHaveBeenLastCalledWith(7, 7, { limit: 1, offset: 0, after: { version: 3 } });
      expect(next).toMatchObject({ offset: null, nextCursor: null });
    });

    it("refuses another blog's cursor before reading", async () => {
      repository.findPage.mockResolvedValue({ blog: LIVE, items: [REVISION], total: 2, more: true });
      const { nextCursor } = await service.list(7, { limit: 1 }, alice, NOW);
      repository.findPage.mockClear();
      await expectHttpError(
        service.list(8, { limit: 1, cursor: nextCursor as string }, alice, NOW),
        BadRequestException,
        400,
        ["cursor was made for another blog's revisions: use it with the blog it came from"],
      );
      expect(repository.findPage).not.toHaveBeenCalled();
    });
  });

  it('findOne: a revision not kept is 404 naming it and its blog', async () => {
    repository.findOne.mockResolvedValue({ blog: LIVE, revision: null });
    await expectHttpError(service.findOne(7, 3, alice, NOW), NotFoundException, 404, 'Revision 3 of blog 7 not found');
    expect(repository.findOne).toHaveBeenCalledWith(7, 3, 7);
  });

  describe('restore', () => {
    it("updates the blog to the revision's title, content, author and tags under the preconditions", async () => {
      repository.findToRestore.mockResolvedValue({ blog: LIVE, revision: REVISION, blogVersion: 5, current: false });
      blogs.update.mockResolvedValue(BLOG);
      const preconditions = parseWritePreconditions({ ifMatch: '"7-5"' });

      await expect(service.restore(7, 3, alice, NOW, preconditions)).resolves.toBe(BLOG);
      expect(blogs.update).toHaveBeenCalledWith(
        7,
        { title: 'Old title', content: 'Old content', author: 'Alice', tags: ['NestJS'] },
        alice,
        NOW,
        preconditions,
      );
    });

    it('without preconditions, updates on the version read; overtaken (412), reads again and answers the blog', async () => {
      repository.findToRestore
        .mockResolvedValueOnce({ blog: LIVE, revision: REVISION, blogVersion: 5, current: false })
        .mockResolvedValueOnce({ blog: LIVE, revision: REVISION, blogVersion: 6, current: true });
      blogs.update.mockRejectedValue(new PreconditionFailedException('Blog 7 has changed'));
      blogs.findOne.mockResolvedValue(BLOG);

      await expect(service.restore(7, 3, alice, NOW, {})).resolves.toBe(BLOG);
      expect(blogs.update).toHaveBeenCalledTimes(1);
      expect(blogs.update.mock.calls[0][4]).toEqual(parseWritePreconditions({ ifMatch: '"7-5"' }));
      expect(blogs.findOne).toHaveBeenCalledWith(7, alice, NOW, 'primary');
    });

    it('without preconditions, overtaken every time, writes at last whatever the version', async () => {
      repository.findToRestore.mockResolvedValue({ blog: LIVE, revision: REVISION, blogVersion: 5, current: false });
      blogs.update
        .mockRejectedValueOnce(new PreconditionFailedException('Blog 7 has changed'))
        .mockRejectedValueOnce(new PreconditionFailedException('Blog 7 has changed'))
        .mockResolvedValueOnce(BLOG);

      await expect(service.restore(7, 3, alice, NOW, {})).resolves.toBe(BLOG);
      expect(blogs.update.mock.calls.map((call: unknown[]) => call[4])).toEqual([
        parseWritePreconditions({ ifMatch: '"7-5"' }),
        parseWritePreconditions({ ifMatch: '"7-5"' }),
        {},
      ]);
    });

    it('answers the blog from the primary, unchanged, when its text is the revision already', async () => {
      repository.findToRestore.mockResolvedValue({ blog: LIVE, revision: REVISION, blogVersion: 5, current: true });
      blogs.findOne.mockResolvedValue(BLOG);

      await expect(service.restore(7, 3, alice, NOW, parseWritePreconditions({ ifMatch: '"7-5"' }))).resolves.toBe(
        BLOG,
      );
      expect(blogs.findOne).toHaveBeenCalledWith(7, alice, NOW, 'primary');
      expect(blogs.update).not.toHaveBeenCalled();
    });

    it.each([
      ['If-Match of another version', '"7-4"', undefined],
      ['If-None-Match of this version', undefined, '"7-5"'],
      ['If-None-Match: *', undefined, '*'],
    ])('a blog whose text is the revision already, with %s, is 412', async (_name, ifMatch, ifNoneMatch) => {
      repository.findToRestore.mockResolvedValue({ blog: LIVE, revision: REVISION, blogVersion: 5, current: true });
      await expectHttpError(
        service.restore(7, 3, alice, NOW, parseWritePreconditions({ ifMatch, ifNoneMatch })),
        PreconditionFailedException,
        412,
        'Blog 7 has changed: the precondition (If-Match / If-None-Match) does not hold for its current ETag',
      );
      expect(blogs.findOne).not.toHaveBeenCalled();
    });

    it('a revision not kept is 404, before any precondition', async () => {
      repository.findToRestore.mockResolvedValue({ blog: LIVE, revision: null, blogVersion: 5, current: false });
      await expectHttpError(
        service.restore(7, 3, alice, NOW, parseWritePreconditions({ ifMatch: '"7-1"' })),
        NotFoundException,
        404,
        'Revision 3 of blog 7 not found',
      );
      expect(blogs.update).not.toHaveBeenCalled();
    });
  });
});

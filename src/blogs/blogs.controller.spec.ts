import { BadRequestException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expectHttpError } from '../../test/support/http-error';
import type { Request, Response } from 'express';
import type { Principal } from '../auth/principal';
import type { Blog } from './blog.entity';
import { BlogsController } from './blogs.controller';
import { BlogsService } from './blogs.service';
import { IdempotencyRepository } from '../idempotency/idempotency.repository';
import { PublicAnswer } from '../shared-cache/public-read';
import { SharedCache } from '../shared-cache/shared-cache';

const blog: Blog = {
  id: 7,
  title: 'Title',
  content: 'Content',
  author: 'Alice',
  ownerSub: 'alice',
  createdAt: new Date('2026-01-01T00:00:00.000Z'),
  updatedAt: new Date('2026-01-02T00:00:00.000Z'),
  version: 3,
  publishedAt: new Date('2026-01-01T00:00:00.000Z'),
  slug: 'title',
  tagSlugs: ['nestjs'],
  tags: ['NestJS'],
};
const publicBlog = {
  id: 7,
  title: 'Title',
  content: 'Content',
  author: 'Alice',
  createdAt: blog.createdAt,
  updatedAt: blog.updatedAt,
  status: 'published',
  publishedAt: blog.publishedAt,
  slug: 'title',
  tags: ['NestJS'],
};
/** The instant the controller reads its clock at. */
const NOW = expect.any(Date) as Date;
const input = { title: 'Title', content: 'Content', author: 'Alice' };
const alice: Principal = { sub: 'alice', scopes: [] };
const CACHE = { maxAge: 0, sharedMaxAge: 86_400, purgeUrls: [] };
const PUBLIC = 'public, max-age=0, s-maxage=86400';

describe('BlogsController', () => {
  let controller: BlogsController;
  let cache: SharedCache;
  let service: { [K in 'list' | 'findOne' | 'findBySlug' | 'create' | 'update' | 'remove']: jest.Mock };
  let response: { setHeader: jest.Mock; location: jest.Mock; status: jest.Mock; end: jest.Mock; vary: jest.Mock };

  beforeEach(async () => {
    service = {
      list: jest.fn(),
      findOne: jest.fn(),
      findBySlug: jest.fn(),
      create: jest.fn(),
      update: jest.fn(),
      remove: jest.fn(),
    };
    response = { setHeader: jest.fn(), location: jest.fn(), status: jest.fn(), end: jest.fn(), vary: jest.fn() };
    // Express's setters return the response, so that calls chain.
    for (const setter of [response.location, response.status]) setter.mockReturnValue(response);
    const moduleRef = await Test.createTestingModule({
      controllers: [BlogsController],
      // The routes' @Idempotent() interceptor is tested on its own (idempotency.interceptor.spec.ts).
      providers: [
        { provide: BlogsService, useValue: service },
        { provide: IdempotencyRepository, useValue: {} },
        {
          provide: SharedCache,
          useValue: new SharedCache(CACHE, { readsRequireAuth: false } as never, { lagBoundMs: 0 } as never),
        },
      ],
    }).compile();
    controller = moduleRef.get(BlogsController);
    cache = moduleRef.get(SharedCache);
  });

  const res = (): Response => response as unknown as Response;

  const read = (url: string, headers: Record<string, string> = {}): PublicAnswer =>
    new PublicAnswer(cache, req(url, headers), res());

  const req = (url: string, headers: Record<string, string> = {}): Request =>
    ({ url, originalUrl: url, headers, ip: '192.0.2.7' }) as unknown as Request;

  it('list answers the envelope with the public fields, the effective paging and no next page', async () => {
    service.list.mockResolvedValueOnce({ items: [blog], total: 12, totalRelation: 'eq', offset: 10, nextCursor: null });

    await expect(
      controller.list(
        { limit: 5, offset: 10, sort: '-createdAt', status: 'published' },
        undefined,
        read('/api/v1/blogs?limit=5&offset=10'),
      ),
    ).resolves.toEqual({ data: [publicBlog], total: 12, totalRelation: 'eq', limit: 5, offset: 10, nextCursor: null });
    expect(service.list).toHaveBeenCalledWith(
      { limit: 5, offset: 10, sort: '-createdAt', status: 'published', withContent: true, client: 'ip:192.0.2.7' },
      undefined,
      NOW,
    );
    expect(response.setHeader.mock.calls).toEqual([
      ['Cache-Control', PUBLIC],
      ['Surrogate-Key', 'blogs'],
    ]);
  });

  it('list links the next page: the same parameters, cursor in place of offset', async () => {
    service.list.mockResolvedValueOnce({ items: [blog], total: 12, offset: 0, nextCursor: 'abc.def' });

    const body = await controller.list(
      { limit: 1, offset: 0, sort: 'title', q: 'a b', status: 'published' },
      undefined,
      read('/api/v1/blogs?q=a+b&offset=0&sort=title&limit=1'),
    );

    expect(body.nextCursor).toBe('abc.def');
    expect(response.setHeader).toHaveBeenCalledWith(
      'Link',
      '</api/v1/blogs?q=a+b&sort=title&limit=1&cursor=abc.def>; rel="next"',
    );
  });

  it('list sends exactly the fields asked for, and reads no content when it is not among them', async () => {
    service.list.mockResolvedValueOnce({
      items: [blog],
      total: 10_000,
      totalRelation: 'gte',
      offset: null,
      nextCursor: null,
    });

    const body = await controller.list(
      { limit: 10, sort: '-createdAt', fields: 'updatedAt,id', cursor: 'x', status: 'draft' },
      alice,
      read('/api/v1/blogs?fields=updatedAt,id&cursor=x'),
    );

    expect(body).toEqual({
      data: [{ id: 7, updatedAt: blog.updatedAt }],
      total: 10_000,
      totalRelation: 'gte',
      limit: 10,
      offset: null,
      nextCursor: null,
    });
    expect(service.list).toHaveBeenCalledWith(expect.objectContaining({ withContent: false }), alice, NOW);
  });

  it('findOne answers the blog without its owner, with its strong ETag', async () => {
    service.findOne.mockResolvedValueOnce(blog);

    await expect(controller.findOne(7, undefined, read('/api/v1/blogs/7'))).resolves.toEqual(publicBlog);
    expect(service.findOne).toHaveBeenCalledWith(7, undefined, NOW);
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-3"');
  });

  it('findOne lets the service decide absence', async () => {
    service.findOne.mockRejectedValueOnce(new NotFoundException('Blog 7 not found'));

    await expect(controller.findOne(7, alice, read('/api/v1/blogs/7', { authorization: 'Bearer t' }))).rejects.toThrow(
      NotFoundException,
    );
    expect(response.setHeader).not.toHaveBeenCalled();
  });

  it('findOne tags a scheduled blog with its scheduled state', async () => {
    service.findOne.mockResolvedValueOnce({ ...blog, publishedAt: new Date(Date.now() + 3_600_000) });

    await expect(
      controller.findOne(7, alice, read('/api/v1/blogs/7', { authorization: 'Bearer t' })),
    ).resolves.toMatchObject({ status: 'scheduled' });
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-3-scheduled"');
  });

  it.each([
    [
      'an anonymous read',
      {},
      [
        ['Cache-Control', PUBLIC],
        ['Surrogate-Key', 'blog-7'],
        ['ETag', '"7-3"'],
      ],
      1,
    ],
    ['a read with a token', { authorization: 'Bearer t' }, [['ETag', '"7-3"']], 0],
    ['a read with an empty Authorization', { authorization: '' }, [['ETag', '"7-3"']], 0],
  ])('findOne: %s is public to shared caches only without Authorization', async (_name, headers, calls, varied) => {
    service.findOne.mockResolvedValueOnce(blog);

    await controller.findOne(7, undefined, read('/api/v1/blogs/7', headers));

    expect(response.setHeader.mock.calls).toEqual(calls);
    expect(response.vary).toHaveBeenCalledTimes(varied);
  });

  it('findBySlug keys an anonymous answer by the blog id, not the slug', async () => {
    service.findBySlug.mockResolvedValueOnce({ blog, moved: false });

    await controller.findBySlug('title', undefined, req('/api/v1/blogs/slug/title'), res());

    expect(response.setHeader).toHaveBeenCalledWith('Surrogate-Key', 'blog-7');
    expect(response.vary).toHaveBeenCalledWith('Authorization');
  });

  it('findBySlug answers the blog of its current slug with its ETag', async () => {
    service.findBySlug.mockResolvedValueOnce({ blog, moved: false });

    await expect(controller.findBySlug('title', undefined, req('/api/v1/blogs/slug/title'), res())).resolves.toEqual(
      publicBlog,
    );
    expect(service.findBySlug).toHaveBeenCalledWith('title', undefined, NOW);
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-3"');
    expect(response.status).not.toHaveBeenCalled();
  });

  it.each([
    ['/api/v1/blogs/slug/old', '/api/v1/blogs/slug/title'],
    ['/api/blogs/slug/old?x=1', '/api/blogs/slug/title'],
    ['/v1/blogs/slug/old/', '/v1/blogs/slug/title'],
  ])('findBySlug redirects an earlier slug %s to %s (301)', async (url, location) => {
    service.findBySlug.mockResolvedValueOnce({ blog, moved: true });

    await expect(controller.findBySlug('old', undefined, req(url), res())).resolves.toBeUndefined();
    expect(response.status).toHaveBeenCalledWith(301);
    expect(response.location).toHaveBeenCalledWith(location);
    expect(response.end).toHaveBeenCalledWith();
    expect(response.setHeader.mock.calls).toEqual([['Cache-Control', 'no-cache']]);
  });

  it("create stores the blog as the token subject's and answers Location and ETag", async () => {
    service.create.mockResolvedValueOnce({ ...blog, version: 1 });

    await expect(controller.create(input, alice, res())).resolves.toEqual(publicBlog);
    expect(service.create).toHaveBeenCalledWith(input, 'alice', NOW);
    expect(response.location).toHaveBeenCalledWith('/api/v1/blogs/7');
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-1"');
  });

  it.each([
    ['no precondition', undefined, undefined, {}],
    ['If-Match', '"7-3"', undefined, { ifMatch: { any: false, tags: [{ weak: false, opaque: '"7-3"' }] } }],
    ['If-None-Match', undefined, '*', { ifNoneMatch: { any: true } }],
  ])('update passes %s to the service and answers the new ETag', async (_name, ifMatch, ifNoneMatch, expected) => {
    service.update.mockResolvedValueOnce({ ...blog, version: 4 });

    await expect(controller.update(7, input, alice, { ifMatch, ifNoneMatch }, res())).resolves.toEqual(publicBlog);
    expect(service.update).toHaveBeenCalledWith(7, input, alice, NOW, {
      ifMatch: undefined,
      ifNoneMatch: undefined,
      ...expected,
    });
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-4"');
  });

  it('update answers 400 for a malformed If-Match without asking the service', async () => {
    await expectHttpError(
      controller.update(7, input, alice, { ifMatch: 'not-a-tag' }, res()),
      BadRequestException,
      400,
      'If-Match must be * or a comma-separated list of quoted entity tags',
    );
    expect(service.update).not.toHaveBeenCalled();
  });

  it('patch hands the given fields and the preconditions to the service and answers the whole blog with its new ETag', async () => {
    service.update.mockResolvedValueOnce({ ...blog, version: 5 });
    const changes = { title: 'Title' };

    await expect(controller.patch(7, changes, alice, { ifMatch: '"7-4"' }, res())).resolves.toEqual(publicBlog);
    expect(service.update).toHaveBeenCalledWith(7, changes, alice, NOW, {
      ifMatch: { any: false, tags: [{ weak: false, opaque: '"7-4"' }] },
      ifNoneMatch: undefined,
    });
    expect(response.setHeader).toHaveBeenCalledWith('ETag', '"7-5"');
  });

  it('patch answers 400 for a malformed If-None-Match without asking the service', async () => {
    await expectHttpError(
      controller.patch(7, { author: 'A' }, alice, { ifNoneMatch: 'W/' }, res()),
      BadRequestException,
      400,
      'If-None-Match must be * or a comma-separated list of quoted entity tags',
    );
    expect(service.update).not.toHaveBeenCalled();
  });

  it.each([
    ['no precondition', undefined, undefined, {}],
    ['If-Match: *', '*', undefined, { ifMatch: { any: true } }],
    ['If-None-Match', undefined, '"7-3"', { ifNoneMatch: { any: false, tags: [{ weak: false, opaque: '"7-3"' }] } }],
  ])('remove passes %s to the service and answers nothing', async (_name, ifMatch, ifNoneMatch, expected) => {
    service.remove.mockResolvedValueOnce(undefined);

    await expect(controller.remove(7, alice, { ifMatch, ifNoneMatch })).resolves.toBeUndefined();
    expect(service.remove).toHaveBeenCalledWith(7, alice, NOW, {
      ifMatch: undefined,
      ifNoneMatch: undefined,
      ...expected,
    });
  });

  it('remove answers 400 for a malformed If-Match without asking the service', async () => {
    await expect(controller.remove(7, alice, { ifMatch: '"a" "b"' })).rejects.toThrow(BadRequestException);
    expect(service.remove).not.toHaveBeenCalled();
  });

  it('remove lets the service decide absence, ownership and preconditions', async () => {
    service.remove.mockRejectedValueOnce(new NotFoundException('Blog 7 not found'));

    await expect(controller.remove(7, alice, {})).rejects.toThrow(NotFoundException);
  });
});

import { NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Request, Response } from 'express';
import { expectHttpError } from '../../test/support/http-error';
import { PublicAnswer } from '../shared-cache/public-read';
import { SharedCache } from '../shared-cache/shared-cache';
import { TagsController } from './tags.controller';
import { TagsService } from './tags.service';

const nestjs = { slug: 'nestjs', name: 'NestJS', count: 3 };

describe('TagsController', () => {
  let controller: TagsController;
  let service: { [K in 'list' | 'findOne']: jest.Mock };
  let headers: Record<string, string>;
  let anonymous: () => PublicAnswer;
  const res = (): Response =>
    ({ setHeader: (name: string, value: string) => (headers[name] = value), vary: jest.fn() }) as unknown as Response;

  beforeEach(async () => {
    service = { list: jest.fn(), findOne: jest.fn() };
    headers = {};
    const moduleRef = await Test.createTestingModule({
      controllers: [TagsController],
      providers: [
        { provide: TagsService, useValue: service },
        {
          provide: SharedCache,
          useValue: new SharedCache(
            { maxAge: 0, sharedMaxAge: 60, purgeUrls: [] },
            { readsRequireAuth: false } as never,
            { lagBoundMs: 0 } as never,
          ),
        },
      ],
    }).compile();
    controller = moduleRef.get(TagsController);
    anonymous = () => new PublicAnswer(moduleRef.get(SharedCache), { headers: {} } as Request, res());
  });

  it('list answers the envelope {data, total, totalRelation, limit, offset}, without nextCursor', async () => {
    service.list.mockResolvedValue({ items: [nestjs], total: 7, offset: 2 });

    const body = await controller.list({ limit: 1, offset: 2, sort: 'slug' }, anonymous());

    expect(service.list).toHaveBeenCalledWith({ limit: 1, offset: 2, sort: 'slug' }, expect.any(Date));
    expect(body).toStrictEqual({ data: [nestjs], total: 7, totalRelation: 'eq', limit: 1, offset: 2 });
    expect(headers).toStrictEqual({ 'Cache-Control': 'public, max-age=0, s-maxage=60', 'Surrogate-Key': 'blogs' });
  });

  it('findOne answers exactly slug, name and count', async () => {
    service.findOne.mockResolvedValue({ ...nestjs, createdAt: new Date() });

    await expect(controller.findOne('nestjs', anonymous())).resolves.toStrictEqual(nestjs);
    expect(service.findOne).toHaveBeenCalledWith('nestjs', expect.any(Date));
    expect(headers['Surrogate-Key']).toBe('blogs');
  });

  it("findOne passes the service's 404 on", async () => {
    service.findOne.mockRejectedValue(new NotFoundException('Tag go not found'));

    await expectHttpError(controller.findOne('go', anonymous()), NotFoundException, 404, 'Tag go not found');
    expect(headers).toStrictEqual({});
  });
});

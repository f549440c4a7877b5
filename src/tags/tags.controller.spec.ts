import { NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { expectHttpError } from '../../test/support/http-error';
import { TagsController } from './tags.controller';
import { TagsService } from './tags.service';

const nestjs = { slug: 'nestjs', name: 'NestJS', count: 3 };

describe('TagsController', () => {
  let controller: TagsController;
  let service: { [K in 'list' | 'findOne']: jest.Mock };

  beforeEach(async () => {
    service = { list: jest.fn(), findOne: jest.fn() };
    const moduleRef = await Test.createTestingModule({
      controllers: [TagsController],
      providers: [{ provide: TagsService, useValue: service }],
    }).compile();
    controller = moduleRef.get(TagsController);
  });

  it('list answers the envelope {data, total, limit, offset}, without nextCursor', async () => {
    service.list.mockResolvedValue({ items: [nestjs], total: 7, offset: 2 });

    const body = await controller.list({ limit: 1, offset: 2, sort: 'slug' });

    expect(service.list).toHaveBeenCalledWith({ limit: 1, offset: 2, sort: 'slug' }, expect.any(Date));
    expect(body).toStrictEqual({ data: [nestjs], total: 7, limit: 1, offset: 2 });
  });

  it('findOne answers exactly slug, name and count', async () => {
    service.findOne.mockResolvedValue({ ...nestjs, createdAt: new Date() });

    await expect(controller.findOne('nestjs')).resolves.toStrictEqual(nestjs);
    expect(service.findOne).toHaveBeenCalledWith('nestjs', expect.any(Date));
  });

  it("findOne passes the service's 404 on", async () => {
    service.findOne.mockRejectedValue(new NotFoundException('Tag go not found'));

    await expectHttpError(controller.findOne('go'), NotFoundException, 404, 'Tag go not found');
  });
});

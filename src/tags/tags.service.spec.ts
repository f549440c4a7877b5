import { BadRequestException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { errorOf, expectHttpError } from '../../test/support/http-error';
import type { CountedTag } from './counted-tag';
import { TagsRepository } from './tags.repository';
import { TagsService } from './tags.service';

const nestjs: CountedTag = { slug: 'nestjs', name: 'NestJS', count: 3 };
const NOW = new Date('2030-06-01T12:00:00.000Z');

describe('TagsService', () => {
  let service: TagsService;
  let repository: { [K in 'findPage' | 'findBySlug']: jest.Mock };

  beforeEach(async () => {
    repository = { findPage: jest.fn(), findBySlug: jest.fn() };
    const moduleRef = await Test.createTestingModule({
      providers: [TagsService, { provide: TagsRepository, useValue: repository }],
    }).compile();
    service = moduleRef.get(TagsService);
  });

  describe('list', () => {
    it('reads the page counted at the instant given and answers it with its offset and total', async () => {
      repository.findPage.mockResolvedValue({ items: [nestjs], total: 41 });

      const page = await service.list({ sort: 'slug', limit: 5, offset: 40 }, NOW);

      expect(page).toEqual({ items: [nestjs], total: 41, offset: 40 });
      expect(repository.findPage).toHaveBeenCalledWith({ sort: 'slug', limit: 5, offset: 40, now: NOW });
    });

    it('answers an empty page past the end with the true total', async () => {
      repository.findPage.mockResolvedValue({ items: [], total: 2 });

      await expect(service.list({ sort: '-count', limit: 10, offset: 10 }, NOW)).resolves.toEqual({
        items: [],
        total: 2,
        offset: 10,
      });
    });
  });

  describe('findOne', () => {
    it('answers the tag with live blogs, counted at the instant given', async () => {
      repository.findBySlug.mockResolvedValue(nestjs);

      await expect(service.findOne('nestjs', NOW)).resolves.toEqual(nestjs);
      expect(repository.findBySlug).toHaveBeenCalledWith('nestjs', NOW);
    });

    it.each([
      ['no tag has the slug', null],
      ['no live blog has the tag', { ...nestjs, count: 0 }],
    ])('is 404 when %s', async (_case, found) => {
      repository.findBySlug.mockResolvedValue(found);

      await expectHttpError(service.findOne('nestjs', NOW), NotFoundException, 404, 'Tag nestjs not found');
    });
  });

  describe('normalize', () => {
    it.each([
      [[], [], []],
      [['NestJS'], ['nestjs'], ['NestJS']],
      [
        ['NestJS', 'nestjs', 'Nest JS', 'nest-js'],
        ['nestjs', 'nest-js'],
        ['NestJS', 'Nest JS'],
      ],
      [
        ['Zebra', 'Äpfel', 'C++'],
        ['zebra', 'apfel', 'c'],
        ['Zebra', 'Äpfel', 'C++'],
      ],
      [
        ['TypeScript', 'typescript!', 'Node.js'],
        ['typescript', 'node-js'],
        ['TypeScript', 'Node.js'],
      ],
    ])('makes %j the slugs %j named %j (first name of a slug, order kept)', (names, slugs, kept) => {
      expect(service.normalize(names)).toEqual({ slugs, names: kept });
    });

    it('cuts a slug to 50 characters at a dash', () => {
      const { slugs } = service.normalize([`${'word '.repeat(9)}longword`]);

      expect(slugs).toEqual(['word-word-word-word-word-word-word-word-word']);
      expect(service.normalize(['x'.repeat(50)]).slugs).toEqual(['x'.repeat(50)]);
    });

    it('names every tag without a letter or digit, by its index', async () => {
      const error = await errorOf(() => service.normalize(['ok', '!!!', 'fine', ' - ']));

      expect(error).toBeInstanceOf(BadRequestException);
      expect((error as BadRequestException).getResponse()).toMatchObject({
        statusCode: 400,
        message: ['tags[1] must contain a letter or digit', 'tags[3] must contain a letter or digit'],
      });
    });
  });
});

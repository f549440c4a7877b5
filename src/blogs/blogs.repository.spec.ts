import { Test } from '@nestjs/testing';
import { getRepositoryToken } from '@nestjs/typeorm';
import { StatementRunner } from '../database/statement-runner';
import { TagsRepository } from '../tags/tags.repository';
import { Blog } from './blog.entity';
import { BlogsRepository } from './blogs.repository';

const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
const row = { id: 7, slug: 'same-3' };

describe('BlogsRepository and deadlocks on the slug gaps', () => {
  let repository: BlogsRepository;
  const onPrimary = jest.fn();

  beforeEach(async () => {
    onPrimary.mockReset();
    const moduleRef = await Test.createTestingModule({
      providers: [
        BlogsRepository,
        { provide: StatementRunner, useValue: { onPrimary } },
        { provide: TagsRepository, useValue: {} },
        {
          provide: getRepositoryToken(Blog),
          useValue: {
            create: () => ({}),
            metadata: {
              columns: ['id', 'slug'].map((name) => ({
                databaseName: name,
                setEntityValue: (entity: Record<string, unknown>, value: unknown) => (entity[name] = value),
              })),
            },
          },
        },
      ],
    }).compile();
    repository = moduleRef.get(BlogsRepository);
  });

  const condition = { owner: 'alice', versions: {}, now: new Date(0) };
  const newBlog = {
    title: 'Same',
    content: 'c',
    author: 'a',
    ownerSub: 'alice',
    publishedAt: null,
    slug: { value: 'same', explicit: true },
    tags: { slugs: [], names: [] },
  };

  it.each([
    ['insert (an explicit slug too)', () => repository.insert(newBlog as never), { id: 7, slug: 'same-3' }],
    ['update', () => repository.update(7, { publication: { change: { kind: 'keep' } } } as never, condition), row],
    ['delete', () => repository.delete(7, condition), true],
  ])('%s runs its statement again after a deadlock (40P01)', async (_name, write, expected) => {
    onPrimary.mockRejectedValueOnce(deadlock).mockResolvedValueOnce({ rows: [row], rowCount: 1 });

    await expect(write()).resolves.toEqual(expected);
    expect(onPrimary).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['insert', () => repository.insert(newBlog as never)],
    ['update', () => repository.update(7, { publication: { change: { kind: 'keep' } } } as never, condition)],
    ['delete', () => repository.delete(7, condition)],
  ])('%s passes any other error on, once', async (_name, write) => {
    onPrimary.mockRejectedValueOnce(Object.assign(new Error('no'), { code: '22001' }));

    await expect(write()).rejects.toThrow('no');
    expect(onPrimary).toHaveBeenCalledTimes(1);
  });
});

import { Test } from '@nestjs/testing';
import type { StoredEvent } from '../events/event-resource';
import { TagsRepository } from '../tags/tags.repository';
import { BlogEvents } from './blog-events';
import { BlogPublicationsRepository } from './blog-publications.repository';

const AT = new Date('2030-06-01T12:00:00.000Z');

/** A stored `blogs` row as the trigger writes it: columns by name, timestamps with an offset. */
const snapshot = (publishedAt: string | null, tagSlugs: string[] = []): Record<string, unknown> => ({
  id: 7,
  title: 'Hello',
  content: 'World',
  author: 'Alice',
  created_at: '2030-06-01T13:59:00.000+02:00',
  updated_at: '2030-06-01T14:00:00.000+02:00',
  version: 2,
  published_at: publishedAt,
  slug: 'hello',
  tag_slugs: tagSlugs,
});

const event = (type: string, data: Record<string, unknown>): StoredEvent => ({ id: '1', type, occurredAt: AT, data });

describe('BlogEvents', () => {
  let blogEvents: BlogEvents;
  let tags: { names: jest.Mock };
  let publications: { publishDue: jest.Mock };

  beforeEach(async () => {
    tags = { names: jest.fn().mockResolvedValue(new Map([['nestjs', 'NestJS']])) };
    publications = { publishDue: jest.fn().mockResolvedValue(0) };
    const moduleRef = await Test.createTestingModule({
      providers: [
        BlogEvents,
        { provide: TagsRepository, useValue: tags },
        { provide: BlogPublicationsRepository, useValue: publications },
      ],
    }).compile();
    blogEvents = moduleRef.get(BlogEvents);
  });

  it('answers each blog as its owner reads it at the instant of the event, its tags named in one look-up', async () => {
    const blogs = await blogEvents.present([
      event('blog.updated', snapshot('2030-06-01T12:00:00.001Z', ['nestjs'])),
      event('blog.published', snapshot('2030-06-01T11:00:00.000Z', ['nestjs'])),
    ]);

    expect(tags.names).toHaveBeenCalledTimes(1);
    expect(tags.names).toHaveBeenCalledWith(new Set(['nestjs']));
    expect(blogs).toEqual([
      {
        id: 7,
        title: 'Hello',
        content: 'World',
        author: 'Alice',
        createdAt: new Date('2030-06-01T11:59:00.000Z'),
        updatedAt: new Date('2030-06-01T12:00:00.000Z'),
        status: 'scheduled',
        publishedAt: new Date('2030-06-01T12:00:00.001Z'),
        slug: 'hello',
        tags: ['NestJS'],
      },
      expect.objectContaining({ status: 'published', tags: ['NestJS'] }),
    ]);
  });

  it.each([
    ['a draft', null, 'draft'],
    ['a live blog', '2030-01-01T00:00:00.000Z', 'published'],
  ])('answers the status of %s', async (_name, publishedAt, status) => {
    const [blog] = await blogEvents.present([event('blog.created', snapshot(publishedAt))]);

    expect(blog).toEqual(expect.objectContaining({ status, tags: [] }));
  });

  it('answers a deletion with the id and slug alone', async () => {
    const blogs = await blogEvents.present([event('blog.deleted', { id: 7, slug: 'hello' })]);

    expect(blogs).toEqual([{ id: 7, slug: 'hello' }]);
  });

  it('publishes the scheduled blogs that are due before each relay', async () => {
    await blogEvents.beforeRelay();

    expect(publications.publishDue).toHaveBeenCalledTimes(1);
  });
});

import { Test } from '@nestjs/testing';
import { TagsRepository } from '../tags/tags.repository';
import type { ChangeEvent } from './event.entity';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

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

describe('EventsService', () => {
  let service: EventsService;
  let events: { [K in 'relay' | 'after' | 'byId']: jest.Mock };
  let tags: { names: jest.Mock };

  beforeEach(async () => {
    events = { relay: jest.fn().mockResolvedValue(0), after: jest.fn(), byId: jest.fn() };
    tags = { names: jest.fn().mockResolvedValue(new Map([['nestjs', 'NestJS']])) };
    const moduleRef = await Test.createTestingModule({
      providers: [
        EventsService,
        { provide: EventsRepository, useValue: events },
        { provide: TagsRepository, useValue: tags },
      ],
    }).compile();
    service = moduleRef.get(EventsService);
  });

  it('numbers committed events before reading, then answers the blog as its owner reads it at the instant of the event', async () => {
    const stored: ChangeEvent[] = [
      { id: '41', type: 'blog.updated', occurredAt: AT, blog: snapshot('2030-06-01T12:00:00.001Z', ['nestjs']) },
      { id: '42', type: 'blog.published', occurredAt: AT, blog: snapshot('2030-06-01T11:00:00.000Z', ['nestjs']) },
    ];
    events.after.mockResolvedValue(stored);

    const page = await service.changes('40', 2);

    expect(events.relay.mock.invocationCallOrder[0]).toBeLessThan(events.after.mock.invocationCallOrder[0]);
    expect(events.after).toHaveBeenCalledWith('40', 2);
    expect(tags.names).toHaveBeenCalledWith(new Set(['nestjs']));
    expect(page.nextAfter).toBe('42');
    expect(page.data.map((e) => [e.id, e.type, e.blog])).toEqual([
      [
        '41',
        'blog.updated',
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
      ],
      ['42', 'blog.published', expect.objectContaining({ status: 'published', tags: ['NestJS'] })],
    ]);
  });

  it.each([
    ['a draft', null, 'draft'],
    ['a live blog', '2030-01-01T00:00:00.000Z', 'published'],
  ])('answers the status of %s', async (_name, publishedAt, status) => {
    events.after.mockResolvedValue([{ id: '1', type: 'blog.created', occurredAt: AT, blog: snapshot(publishedAt) }]);

    const [event] = (await service.changes(undefined, 1)).data;

    expect(event.blog).toEqual(expect.objectContaining({ status, tags: [] }));
  });

  it('answers a deletion with the id and slug alone', async () => {
    events.after.mockResolvedValue([{ id: '9', type: 'blog.deleted', occurredAt: AT, blog: { id: 7, slug: 'hello' } }]);

    const page = await service.changes('8', 100);

    expect(page.data).toEqual([{ id: '9', type: 'blog.deleted', occurredAt: AT, blog: { id: 7, slug: 'hello' } }]);
  });

  it.each([
    ['the after asked with', '17', '17'],
    ['null without an after', undefined, null],
  ])('answers an empty page with %s as nextAfter, reading from 0 when none', async (_name, after, nextAfter) => {
    events.after.mockResolvedValue([]);

    await expect(service.changes(after, 100)).resolves.toEqual({ data: [], nextAfter });
    expect(events.after).toHaveBeenCalledWith(after ?? '0', 100);
  });

  it('answers one event by id as the feed shows it, without relaying', async () => {
    events.byId.mockResolvedValue({ id: '12', type: 'blog.updated', occurredAt: AT, blog: snapshot(null, ['nestjs']) });

    const event = await service.event('12');

    expect(events.byId).toHaveBeenCalledWith('12');
    expect(events.relay).not.toHaveBeenCalled();
    expect(event).toEqual(expect.objectContaining({ id: '12', type: 'blog.updated' }));
    expect(event?.blog).toEqual(expect.objectContaining({ status: 'draft', tags: ['NestJS'] }));
  });

  it('answers null for an event the relay has not numbered', async () => {
    events.byId.mockResolvedValue(null);

    await expect(service.event('13')).resolves.toBeNull();
  });
});

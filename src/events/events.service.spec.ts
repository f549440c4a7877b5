import { Test } from '@nestjs/testing';
import type { ChangeEvent } from './event.entity';
import { EventRegistry } from './event-registry';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';

const AT = new Date('2030-06-01T12:00:00.000Z');

const stored = (id: string, type = 'blog.updated'): ChangeEvent => ({ id, type, occurredAt: AT, data: { id: 7 } });

describe('EventsService', () => {
  let service: EventsService;
  let events: { [K in 'relay' | 'after' | 'byId']: jest.Mock };
  let registry: { present: jest.Mock };

  beforeEach(async () => {
    events = { relay: jest.fn().mockResolvedValue(0), after: jest.fn(), byId: jest.fn() };
    registry = {
      present: jest.fn((page: ChangeEvent[]) =>
        Promise.resolve(page.map(({ id, type, occurredAt, data }) => ({ id, type, occurredAt, blog: data }))),
      ),
    };
    const moduleRef = await Test.createTestingModule({
      providers: [
        EventsService,
        { provide: EventsRepository, useValue: events },
        { provide: EventRegistry, useValue: registry },
      ],
    }).compile();
    service = moduleRef.get(EventsService);
  });

  it('numbers committed events before reading, then answers them as the registry presents the page', async () => {
    const page = [stored('41'), stored('42', 'blog.published')];
    events.after.mockResolvedValue(page);

    const answer = await service.changes('40', 2);

    expect(events.relay.mock.invocationCallOrder[0]).toBeLessThan(events.after.mock.invocationCallOrder[0]);
    expect(events.after).toHaveBeenCalledWith('40', 2);
    expect(registry.present).toHaveBeenCalledTimes(1);
    expect(registry.present).toHaveBeenCalledWith(page);
    expect(answer).toEqual({
      data: [
        { id: '41', type: 'blog.updated', occurredAt: AT, blog: { id: 7 } },
        { id: '42', type: 'blog.published', occurredAt: AT, blog: { id: 7 } },
      ],
      nextAfter: '42',
    });
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
    events.byId.mockResolvedValue(stored('12'));

    const event = await service.event('12');

    expect(events.byId).toHaveBeenCalledWith('12');
    expect(events.relay).not.toHaveBeenCalled();
    expect(event).toEqual({ id: '12', type: 'blog.updated', occurredAt: AT, blog: { id: 7 } });
  });

  it('answers null for an event the relay has not numbered', async () => {
    events.byId.mockResolvedValue(null);

    await expect(service.event('13')).resolves.toBeNull();
    expect(registry.present).not.toHaveBeenCalled();
  });
});

import { Injectable, Module, Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test, TestingModule } from '@nestjs/testing';
import { EventRegistry } from './event-registry';
import { EventPresenter, EventResource, EventResourceOptions, StoredEvent } from './event-resource';

const AT = new Date('2030-06-01T12:00:00.000Z');
const stored = (id: string, type: string): StoredEvent => ({ id, type, occurredAt: AT, data: { id: Number(id) } });

class Payload {}

/** A presenter class `name` registering `options`, answering `<type> <id>` for each event, counting its calls. */
function presenter(
  name: string,
  options: Partial<EventResourceOptions> & Pick<EventResourceOptions, 'resource' | 'types'>,
): Type {
  @EventResource({ schemas: [Payload], description: '', ...options })
  @Injectable()
  class Presenter implements EventPresenter {
    readonly pages: StoredEvent[][] = [];
    relays = 0;

    present(events: readonly StoredEvent[]): Promise<unknown[]> {
      this.pages.push([...events]);
      return Promise.resolve(events.map(({ type, data }) => `${type} ${String(data.id)}`));
    }

    surrogateKeys({ type, data }: StoredEvent): readonly string[] {
      return [`${type.split('.')[0]}-${String(data.id)}`];
    }

    beforeRelay(): Promise<void> {
      this.relays += 1;
      return Promise.resolve();
    }
  }
  Object.defineProperty(Presenter, 'name', { value: name });
  return Presenter;
}

const Blogs = presenter('BlogEvents', { resource: 'blog', types: ['blog.created', 'blog.deleted'] });
const Comments = presenter('CommentEvents', {
  resource: 'comment',
  types: ['comment.created', 'comment.deleted'],
});

const started: TestingModule[] = [];
afterEach(async () => {
  for (const moduleRef of started.splice(0)) await moduleRef.close();
});

/** An application of one feature module per presenter list, with the registry, initialised (closed after the test). */
async function start(...features: Type[][]): Promise<{ registry: EventRegistry; get: <T>(type: Type<T>) => T }> {
  const modules = features.map((providers, n) => {
    @Module({ providers })
    class Feature {}
    Object.defineProperty(Feature, 'name', { value: `Feature${n}` });
    return Feature;
  });
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, ...modules],
    providers: [EventRegistry],
  }).compile();
  started.push(moduleRef);
  await moduleRef.init();
  return { registry: moduleRef.get(EventRegistry), get: (type) => moduleRef.get(type, { strict: false }) };
}

describe('EventRegistry', () => {
  it('discovers the resources that modules register, and their types', async () => {
    const { registry } = await start([Blogs], [Comments]);

    expect(registry.types()).toEqual(['blog.created', 'blog.deleted', 'comment.created', 'comment.deleted']);
    expect(registry.has('comment.deleted')).toBe(true);
    expect(registry.has('comment.read')).toBe(false);
  });

  it('presents a page per resource, once each, under the key of the resource, in feed order', async () => {
    const { registry, get } = await start([Blogs], [Comments]);
    const page = [stored('1', 'blog.created'), stored('2', 'comment.created'), stored('3', 'blog.deleted')];

    const events = await registry.present(page);

    expect(events).toEqual([
      { id: '1', type: 'blog.created', occurredAt: AT, blog: 'blog.created 1' },
      { id: '2', type: 'comment.created', occurredAt: AT, comment: 'comment.created 2' },
      { id: '3', type: 'blog.deleted', occurredAt: AT, blog: 'blog.deleted 3' },
    ]);
    expect((get(Blogs) as { pages: StoredEvent[][] }).pages).toEqual([[page[0], page[2]]]);
    expect((get(Comments) as { pages: StoredEvent[][] }).pages).toEqual([[page[1]]]);
  });

  it('refuses to present an event of a resource that no module registered', async () => {
    const { registry } = await start([Blogs]);

    await expect(registry.present([stored('1', 'comment.created')])).rejects.toThrow(/comment/);
  });

  it("asks the event's own resource for its surrogate keys, and refuses an unregistered one", async () => {
    const { registry } = await start([Blogs], [Comments]);

    expect(registry.surrogateKeys(stored('7', 'comment.created'))).toEqual(['comment-7']);
    expect(registry.surrogateKeys(stored('8', 'blog.deleted'))).toEqual(['blog-8']);
    expect(() => registry.surrogateKeys(stored('9', 'note.created'))).toThrow(/note/);
  });

  it("adds the keys of the resources that hang off an event's resource, after its own", async () => {
    const Notes = presenter('NoteEvents', {
      resource: 'note',
      types: ['note.created'],
      purgedBy: { blog: ({ data }) => [`notes-${String(data.id)}`] },
    });
    const { registry } = await start([Blogs], [Comments], [Notes]);

    expect(registry.surrogateKeys(stored('8', 'blog.deleted'))).toEqual(['blog-8', 'notes-8']);
    expect(registry.surrogateKeys(stored('7', 'comment.created'))).toEqual(['comment-7']);
    expect(registry.surrogateKeys(stored('6', 'note.created'))).toEqual(['note-6']);
  });

  it('refuses to start when a resource hangs off one that no module registered', async () => {
    const Notes = presenter('NoteEvents', { resource: 'note', types: ['note.created'], purgedBy: { page: () => [] } });

    await expect(start([Blogs], [Notes])).rejects.toThrow(
      'Event resource note hangs off page, which no module registered',
    );
  });

  it("runs every resource's beforeRelay", async () => {
    const { registry, get } = await start([Blogs], [Comments]);

    await registry.beforeRelay();

    expect([get(Blogs), get(Comments)].map((p) => (p as { relays: number }).relays)).toEqual([1, 1]);
  });

  it.each([
    ['resource', ['blog.archived'], 'Event resource blog is registered twice: by BlogEvents and by OtherBlogEvents'],
    [
      'type (so the same resource)',
      ['blog.created'],
      'Event resource blog is registered twice: by BlogEvents and by OtherBlogEvents',
    ],
  ])('stops the start-up when two modules register the same %s', async (_name, types, message) => {
    const Other = presenter('OtherBlogEvents', { resource: 'blog', types });

    await expect(start([Blogs], [Other])).rejects.toThrow(message);
  });

  it.each(['blog.post', 'Blog', ''])('stops the start-up when a resource is named %j', async (resource) => {
    await expect(start([presenter('Odd', { resource, types: [`${resource}.created`] })])).rejects.toThrow(
      'is not a lower-case name without dots',
    );
  });

  it('stops the start-up when a type does not start with its resource', async () => {
    await expect(
      start([presenter('CommentEvents', { resource: 'comment', types: ['blog.commented'] })]),
    ).rejects.toThrow('does not start with its resource');
  });
});

import { EventResource, EventResourceOptions } from '../events/event-resource';
import { CommentEvents, COMMENT_EVENT_TYPES } from './comment-events';

describe('CommentEvents', () => {
  it('registers the comment resource with its two types', () => {
    const options = Reflect.getMetadata(EventResource.KEY, CommentEvents) as { resource: string; types: string[] };
    expect(options).toMatchObject({ resource: 'comment', types: ['comment.created', 'comment.deleted'] });
    expect(COMMENT_EVENT_TYPES).toEqual(options.types);
  });

  it('presents a created comment as the API shows it, a deleted one by id and blogId', async () => {
    const occurredAt = new Date('2026-11-28T09:00:01.000Z');
    const payloads = await new CommentEvents().present([
      {
        id: '1',
        type: 'comment.created',
        occurredAt,
        data: { id: 41, blog_id: 17, author: 'Bob', body: 'Nice post.', created_at: '2026-11-28T09:00:00+00:00' },
      },
      { id: '2', type: 'comment.deleted', occurredAt, data: { id: 41, blog_id: 17 } },
    ]);
    expect(payloads).toEqual([
      { id: 41, blogId: 17, author: 'Bob', body: 'Nice post.', createdAt: new Date('2026-11-28T09:00:00.000Z') },
      { id: 41, blogId: 17 },
    ]);
  });

  it("states that a blog's events purge its comment list, so that blogs need not know comments", () => {
    const { purgedBy } = Reflect.getMetadata(EventResource.KEY, CommentEvents) as EventResourceOptions;
    const event = { id: '3', type: 'blog.deleted', occurredAt: new Date(), data: { id: 17, slug: 'hello' } };

    expect(Object.keys(purgedBy ?? {})).toEqual(['blog']);
    expect(purgedBy?.blog(event)).toEqual(['comments-17']);
  });
});

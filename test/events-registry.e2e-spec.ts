import { Injectable, Module } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { StatementRunner } from '../src/database/statement-runner';
import { EventPresenter, EventResource, RECORD_EVENT, StoredEvent } from '../src/events/event-resource';
import { ClosedSchema } from '../src/openapi/schema-rules';
import { BLOGS, bearer, BODY, expectJsonError, messagesOf } from './support/blog-api';
import { useTestApp } from './support/test-app';

// A feature module that only this spec has brings its own events, as a new module does: registered with
// @EventResource, written with RECORD_EVENT in its own transaction, then in the feed, in webhooks and in the OpenAPI
// document beside the blogs' events, with no change to the events or webhooks code.

const NOTE_TYPES = ['note.created', 'note.deleted'];

@ClosedSchema()
class NoteResponse {
  @ApiProperty({ type: 'integer' })
  readonly id!: number;

  @ApiProperty()
  readonly text!: string;
}

@EventResource({ resource: 'note', types: NOTE_TYPES, schemas: [NoteResponse], description: 'The note.' })
@Injectable()
class NoteEvents implements EventPresenter {
  readonly pages: number[] = [];

  present(events: readonly StoredEvent[]): Promise<unknown[]> {
    this.pages.push(events.length);
    return Promise.resolve(events.map(({ data }) => ({ id: data.id, text: String(data.text).toUpperCase() })));
  }

  surrogateKeys({ data }: StoredEvent): readonly string[] {
    return [`note-${String(data.id)}`];
  }
}

@Module({ providers: [NoteEvents] })
class NotesModule {}

interface EventBody {
  id: string;
  type: string;
  occurredAt: string;
  [resource: string]: unknown;
}

describe('a module with events of its own (e2e)', () => {
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, { imports: [NotesModule] });
  const reader = (): string => bearer(t.token('feed-reader', { scope: 'events:read' }));
  const admin = (): string => bearer(t.token('hooks-admin', { scope: 'webhooks:admin' }));

  /** Writes `note.created` for `{id, text}` in a transaction of its own, as the module would with its row. */
  const writeNote = (id: number, text: string): Promise<unknown> =>
    t.app
      .get(StatementRunner)
      .transaction((transaction) => transaction.query(RECORD_EVENT, ['note.created', JSON.stringify({ id, text })]));

  const createBlog = async (): Promise<number> => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('author')))
      .send(BODY);
    expect(res.status).toBe(201);
    return (res.body as { id: number }).id;
  };

  it('puts its events in the feed in commit order among the blogs’, each under its resource’s key', async () => {
    const first = await createBlog();
    await writeNote(1, 'hello');
    const second = await createBlog();
    const presentedBefore = t.app.get(NoteEvents).pages.length;

    const res = await t.http.get('/api/v1/changes').set('Authorization', reader());

    expect(res.status).toBe(200);
    const events = (res.body as { data: EventBody[] }).data;
    expect(events.map((event) => [event.type, (event.blog ?? event.note) as { id: number }])).toEqual([
      ['blog.created', expect.objectContaining({ id: first })],
      ['blog.published', expect.objectContaining({ id: first })],
      ['note.created', { id: 1, text: 'HELLO' }],
      ['blog.created', expect.objectContaining({ id: second })],
      ['blog.published', expect.objectContaining({ id: second })],
    ]);
    expect(Object.keys(events[2]).sort()).toEqual(['id', 'note', 'occurredAt', 'type']);
    expect(t.app.get(NoteEvents).pages.slice(presentedBefore)).toEqual([1]);
  });

  it('lets a webhook ask for its types, and lists them when a type is unknown', async () => {
    const url = 'http://127.0.0.1:9/hook';
    const created = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', admin())
      .send({ url, events: ['note.created', 'blog.deleted'] });
    const refused = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', admin())
      .send({ url, events: ['note.read'] });

    expect([created.status, (created.body as { events: string[] }).events]).toEqual([
      201,
      ['note.created', 'blog.deleted'],
    ]);
    expectJsonError(refused, 400);
    // Every registered type, by resource name (other modules of the app may register theirs between).
    const [message] = messagesOf(refused);
    const types = message.replace('events[0] must be one of ', '').split(', ');
    expect(messagesOf(refused)).toEqual([`events[0] must be one of ${types.join(', ')}`]);
    expect((refused.body as { errors: unknown }).errors).toEqual([{ detail: message, pointer: '/events/0' }]);
    expect(types).toEqual([...types].sort((a, b) => a.split('.')[0].localeCompare(b.split('.')[0])));
    expect(types).toEqual(
      expect.arrayContaining(['blog.created', 'blog.updated', 'blog.deleted', 'blog.published', ...NOTE_TYPES]),
    );
    expect(types.slice(types.indexOf('note.created'), types.indexOf('note.created') + 2)).toEqual(NOTE_TYPES);
  });

  it('documents its event beside the blogs’ in the OpenAPI document', async () => {
    const res = await t.http.get('/api/docs-json');

    const schemas = (res.body as { components: { schemas: Record<string, Record<string, unknown>> } }).components
      .schemas;
    expect(schemas.EventType.enum).toEqual(expect.arrayContaining([...NOTE_TYPES, 'blog.created']));
    expect(schemas.NoteEventResponse).toMatchObject({
      properties: { type: { enum: NOTE_TYPES }, note: { allOf: [{ $ref: '#/components/schemas/NoteResponse' }] } },
      required: ['id', 'type', 'occurredAt', 'note'],
    });
    expect(schemas.EventResponse).toMatchObject({
      oneOf: expect.arrayContaining([
        { $ref: '#/components/schemas/BlogEventResponse' },
        { $ref: '#/components/schemas/NoteEventResponse' },
      ]) as unknown,
      discriminator: { propertyName: 'type', mapping: { 'note.deleted': '#/components/schemas/NoteEventResponse' } },
    });
  });
});

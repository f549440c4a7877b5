import { Webhook as WebhookVerifier } from 'standardwebhooks';
import { BLOGS, bearer, BODY } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

// Comment events delivered to a webhook that subscribed to them, by the job library, to a receiver on this machine.

interface DeliveredEvent {
  id: string;
  type: string;
  comment: Record<string, unknown>;
}

describe('comment events to webhooks (e2e)', () => {
  const t = useTestApp({ JOBS_ENABLED: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' });
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('delivers comment.created and comment.deleted, signed, to a webhook subscribed to them', async () => {
    const admin = bearer(t.token('hooks-admin', { scope: 'webhooks:admin' }));
    const registered = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', admin)
      .send({ url: receiver.url, events: ['comment.created', 'comment.deleted'] });
    expect(registered.status).toBe(201);
    const secret = (registered.body as { secret: string }).secret;
    const owner = bearer(t.token('alice'));
    const blog = await t.http.post(BLOGS).set('Authorization', owner).send(BODY).expect(201);
    const blogId = (blog.body as { id: number }).id;
    const created = await t.http
      .post(`${BLOGS}/${blogId}/comments`)
      .set('Authorization', bearer(t.token('bob')))
      .send({ author: 'Bob', body: 'Nice post.' })
      .expect(201);
    const comment = created.body as { id: number };
    await t.http.delete(`/api/v1/comments/${comment.id}`).set('Authorization', owner).expect(204);

    await eventually(() => receiver.received.length >= 2, 'comment.created and comment.deleted');
    const events = receiver.received.map(
      ({ headers, body }) =>
        new WebhookVerifier(secret).verify(body, headers as Record<string, string>) as DeliveredEvent,
    );
    // Deliveries run concurrently: the feed's order is the events' ids.
    events.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
    expect(events.map(({ type, comment }) => ({ type, comment }))).toEqual([
      { type: 'comment.created', comment: created.body },
      { type: 'comment.deleted', comment: { id: comment.id, blogId } },
    ]);
  });
});

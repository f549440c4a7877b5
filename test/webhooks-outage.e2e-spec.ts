import { BLOGS, bearer, BODY } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

// A receiver that is down for two minutes gets every event afterwards: the first five minutes of retries are at most
// 60 s apart (its own file, so that jest runs the wait beside other files).

const OUTAGE_MS = 120_000;

describe('a webhook receiver down for two minutes (e2e)', () => {
  const t = useTestApp({ JOBS_ENABLED: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' });
  let hook: WebhookReceiver;

  afterAll(async () => {
    await hook?.close();
  });

  it('gets every event once it answers again', async () => {
    hook = await startWebhookReceiver();
    hook.answerWith(503);
    const res = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', bearer(t.token('admin', { scope: 'webhooks:admin' })))
      .send({ url: hook.url, events: ['blog.created'] });
    expect(res.status).toBe(201);
    const ids: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const created = await t.http
        .post(BLOGS)
        .set('Authorization', bearer(t.token('author')))
        .send(BODY);
      ids.push((created.body as { id: number }).id);
    }
    await eventually(() => hook.received.length >= 10, 'the first attempts');
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const refused = hook.received.length;
    hook.answerWith(200);

    await eventually(
      () => {
        const answered = hook.received
          .slice(refused)
          .map(({ body }) => (JSON.parse(body) as { blog: { id: number } }).blog.id);
        return ids.every((id) => answered.includes(id));
      },
      'every event after the outage',
      90_000,
    );
  }, 300_000);
});

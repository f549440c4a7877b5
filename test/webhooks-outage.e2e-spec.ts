import { BLOGS, bearer, BODY } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(300_000));

// A receiver that is down for two minutes gets every event afterwards: the first five minutes of retries are at most
// 60 s apart (its own file, so that jest runs the wait beside other files). Receivers that hang do not delay another.

const OUTAGE_MS = 120_000;

describe('webhook receivers down or hanging (e2e)', () => {
  const t = useTestApp({ JOBS_ENABLED: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' });
  const receivers: WebhookReceiver[] = [];

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const receiver = async (): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };

  const register = async (url: string): Promise<void> => {
    const res = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', bearer(t.token('admin', { scope: 'webhooks:admin' })))
      .send({ url, events: ['blog.created'] });
    expect(res.status).toBe(201);
  };

  it('a receiver beside 10 that hang gets each event within 5 s of its commit', async () => {
    const hanging = await Promise.all(Array.from({ length: 10 }, () => receiver()));
    for (const hook of hanging) hook.answerWith('hang');
    const healthy = await receiver();
    for (const hook of [...hanging, healthy]) await register(hook.url);

    // Commits in parallel, twice: the hanging receivers hold 10 attempts each of every process that runs them.
    const committedAt = new Map<number, number>();
    for (let round = 0; round < 2; round += 1) {
      await Promise.all(
        Array.from({ length: 12 }, async () => {
          const created = await t.http
            .post(BLOGS)
            .set('Authorization', bearer(t.token('author')))
            .send(BODY);
          committedAt.set((created.body as { id: number }).id, Date.now());
        }),
      );
    }
    const arrivedAt = (id: number): number | undefined =>
      healthy.received.find(({ body }) => (JSON.parse(body) as { blog: { id: number } }).blog.id === id)?.at;
    await eventually(() => [...committedAt.keys()].every((id) => arrivedAt(id) !== undefined), 'every event');

    const late = [...committedAt].filter(([id, at]) => arrivedAt(id)! - at > 5_000);
    expect(late.map(([id, at]) => `blog ${id}: ${arrivedAt(id)! - at} ms`)).toEqual([]);
  });

  it('gets every event once it answers again', async () => {
    const hook = await receiver();
    hook.answerWith(503);
    await register(hook.url);
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
  });
});

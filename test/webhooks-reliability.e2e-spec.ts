import { mintToken } from '../src/auth/token-minter';
import { BLOGS, sleep } from './support/blog-api';
import { ServiceProcess, useBuiltService } from './support/service-process';
import { throwawayClusterUnavailableReason, ThrowawayCluster } from './support/throwaway-postgres';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(300_000));

// Webhooks and the clock with the service as real processes on a PostgreSQL cluster of the test's own: a process
// killed mid-delivery, two replicas on one database, and the database crashed under writes. No event may be lost.

const SECRET = 'webhooks-e2e-secret-0123456789abcdefghijklmnopqrs';
const WEBHOOKS = '/api/v1/webhooks';
const CHANGES = '/api/v1/changes';

const built = useBuiltService();

const authorization = (sub: string, scope?: string): string =>
  `Bearer ${mintToken({ secret: SECRET }, { sub, ttl: '1h', scope })}`;

interface FeedEvent {
  id: string;
  type: string;
  blog: { id: number };
}

/** The event ids a receiver got, by type and blog: `"blog.created 12"`. */
function deliveredKeys(receiver: WebhookReceiver): Set<string> {
  return new Set(
    receiver.received.map(({ body }) => {
      const event = JSON.parse(body) as FeedEvent;
      return `${event.type} ${event.blog.id}`;
    }),
  );
}

/** Every event of the feed, read through `service`. */
async function feed(service: ServiceProcess): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let after = '0';
  for (;;) {
    const page = await service.request({
      path: `${CHANGES}?limit=1000&after=${after}`,
      headers: { Authorization: authorization('reader', 'events:read') },
    });
    expect(page.status).toBe(200);
    const { data, nextAfter } = JSON.parse(page.text) as { data: FeedEvent[]; nextAfter: string };
    if (data.length === 0) return events;
    events.push(...data);
    after = nextAfter;
  }
}

const clusterUnavailable = throwawayClusterUnavailableReason();
if (clusterUnavailable !== undefined)
  process.stderr.write(`SKIPPING the throwaway-cluster tests: ${clusterUnavailable}\n`);

(clusterUnavailable === undefined ? describe : describe.skip)(
  `webhooks on a PostgreSQL cluster of the test's own${clusterUnavailable === undefined ? '' : ` — SKIPPED: ${clusterUnavailable}`}`,
  () => {
    let cluster: ThrowawayCluster;
    const receivers: WebhookReceiver[] = [];

    beforeAll(async () => {
      cluster = await ThrowawayCluster.create();
    });

    afterAll(async () => {
      await Promise.all(receivers.map((receiver) => receiver.close()));
      await cluster?.destroy();
    });

    const receiver = async (): Promise<WebhookReceiver> => {
      const started = await startWebhookReceiver();
      receivers.push(started);
      return started;
    };

    const start = async (database: string): Promise<ServiceProcess> => {
      const service = await ServiceProcess.start(built.mainJs, {
        NODE_ENV: 'production',
        JWT_SECRET: SECRET,
        DATABASE_URL: database,
        WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      });
      await service.waitUntilLive();
      return service;
    };

    const register = async (service: ServiceProcess, url: string, events: string[]): Promise<void> => {
      const res = await service.request({
        method: 'POST',
        path: WEBHOOKS,
        body: { url, events },
        headers: { Authorization: authorization('admin', 'webhooks:admin') },
      });
      expect(res.status).toBe(201);
    };

    const create = async (service: ServiceProcess, extra: Record<string, unknown> = {}): Promise<number | null> => {
      const res = await service.request({
        method: 'POST',
        path: BLOGS,
        body: { title: 'A title', content: 'Some content', author: 'Alice', ...extra },
        headers: { Authorization: authorization('alice') },
      });
      return res.status === 201 ? (JSON.parse(res.text) as { id: number }).id : null;
    };

    it('a process killed with SIGKILL in the middle of deliveries: the next one delivers every event', async () => {
      const database = await cluster.createDatabase('hooks_kill');
      const hook = await receiver();
      // After five answers the receiver holds every request open: those deliveries are in flight when the process dies.
      hook.answerWith((index) => (index < 5 ? 200 : 'hang'));
      const first = await start(database);
      await register(first, hook.url, ['blog.created']);
      const ids: number[] = [];
      for (let i = 0; i < 60; i += 1) ids.push((await create(first))!);
      await eventually(() => hook.received.length >= 15, 'deliveries in flight');
      first.kill();
      await first.exited;
      hook.answerWith(200);

      const second = await start(database);
      await eventually(
        () => ids.every((id) => deliveredKeys(hook).has(`blog.created ${id}`)),
        'every blog.created at the receiver after the restart',
        90_000,
      );
      second.kill();
    });

    it('a process killed with 10 attempts in flight: every undelivered event attempted within 60 s of the restart, each recorded once', async () => {
      const database = await cluster.createDatabase('hooks_kill_in_flight');
      const hook = await receiver();
      hook.answerWith({ status: 200, afterMs: 3_000 });
      const first = await start(database);
      await register(first, hook.url, ['blog.created']);
      const ids = await Promise.all(Array.from({ length: 40 }, async () => (await create(first))!));
      await eventually(() => hook.received.length >= 10, 'attempts in flight');
      first.kill();
      const killedAt = Date.now();
      await first.exited;
      const blogOf = ({ body }: { body: string }): number => (JSON.parse(body) as FeedEvent).blog.id;
      // Answered before the kill: made, perhaps recorded; every other event is still to be attempted.
      const answered = new Set(hook.received.filter(({ at }) => at + 3_000 < killedAt).map(blogOf));
      const undelivered = ids.filter((id) => !answered.has(id));

      const restartedAt = Date.now();
      const second = await start(database);
      const attemptedAt = (id: number): number | undefined =>
        hook.received.find((hookCall) => hookCall.at >= restartedAt && blogOf(hookCall) === id)?.at;
      await eventually(
        () => undelivered.every((id) => attemptedAt(id) !== undefined),
        'every undelivered event attempted after the restart',
        120_000,
      );

      const late = undelivered.filter((id) => attemptedAt(id)! - restartedAt > 60_000);
      expect(late.map((id) => `blog ${id}: ${attemptedAt(id)! - restartedAt} ms after the restart`)).toEqual([]);
      const admin = { Authorization: authorization('admin', 'webhooks:admin') };
      const [webhook] = (
        JSON.parse((await second.request({ path: WEBHOOKS, headers: admin })).text) as {
          data: { id: string }[];
        }
      ).data;
      await eventually(async () => {
        const log = await second.request({ path: `${WEBHOOKS}/${webhook.id}/deliveries`, headers: admin });
        return (JSON.parse(log.text) as { data: { statusCode: number | null }[] }).data.length >= 40;
      }, 'every delivery recorded');
      const log = await second.request({ path: `${WEBHOOKS}/${webhook.id}/deliveries`, headers: admin });
      const recorded = (JSON.parse(log.text) as { data: { eventId: string; statusCode: number | null }[] }).data;
      expect(recorded).toHaveLength(40);
      expect(new Set(recorded.map(({ eventId }) => eventId)).size).toBe(40);
      expect(recorded.every(({ statusCode }) => statusCode === 200)).toBe(true);
      second.kill();
    });

    it('two replicas on one database: each event delivered, each scheduled blog published once', async () => {
      const database = await cluster.createDatabase('hooks_replicas');
      const hook = await receiver();
      const replicas = [await start(database), await start(database)];
      await register(replicas[0], hook.url, ['blog.created', 'blog.published']);
      const at = new Date(Date.now() + 3_000).toISOString();
      const ids: number[] = [];
      for (let i = 0; i < 20; i += 1) ids.push((await create(replicas[i % 2], { publishedAt: at }))!);

      await eventually(
        () => ids.every((id) => deliveredKeys(hook).has(`blog.published ${id}`)),
        'every scheduled blog published at the receiver',
        60_000,
      );
      const published = (await feed(replicas[1])).filter((event) => event.type === 'blog.published');
      expect(published.map((event) => event.blog.id).sort((a, b) => a - b)).toEqual(ids);
      expect(ids.every((id) => deliveredKeys(hook).has(`blog.created ${id}`))).toBe(true);
      for (const replica of replicas) replica.kill();
    });

    it('a scheduled blog whose instant passed while no process ran: published once the next one starts', async () => {
      const database = await cluster.createDatabase('hooks_downtime');
      const hook = await receiver();
      const first = await start(database);
      await register(first, hook.url, ['blog.published']);
      const id = (await create(first, { publishedAt: new Date(Date.now() + 3_000).toISOString() }))!;
      first.kill();
      await first.exited;
      await sleep(5_000);
      expect(deliveredKeys(hook).has(`blog.published ${id}`)).toBe(false);

      const second = await start(database);
      await eventually(() => deliveredKeys(hook).has(`blog.published ${id}`), 'blog.published after the restart');
      const published = (await feed(second)).filter((e) => e.type === 'blog.published' && e.blog.id === id);
      expect(published).toHaveLength(1);
      second.kill();
    });

    it('PostgreSQL crashed and restarted under writes: every acknowledged write has its event, delivered', async () => {
      const database = await cluster.createDatabase('hooks_crash');
      const hook = await receiver();
      const service = await start(database);
      await register(service, hook.url, ['blog.created']);
      const acknowledged: number[] = [];
      let writing = true;
      const writer = (async () => {
        while (writing) {
          const id = await create(service);
          if (id !== null) acknowledged.push(id);
          else await sleep(50);
        }
      })();
      await eventually(() => acknowledged.length >= 20, 'writes before the crash');
      await cluster.stop('immediate');
      await sleep(2_000);
      await cluster.start();
      const before = acknowledged.length;
      await eventually(() => acknowledged.length >= before + 20, 'writes after the restart', 60_000);
      writing = false;
      await writer;

      const created = new Set((await feed(service)).filter((e) => e.type === 'blog.created').map((e) => e.blog.id));
      expect(acknowledged.filter((id) => !created.has(id))).toEqual([]);
      await eventually(
        () => acknowledged.every((id) => deliveredKeys(hook).has(`blog.created ${id}`)),
        'every acknowledged write delivered',
        90_000,
      );
      service.kill();
    });
  },
);

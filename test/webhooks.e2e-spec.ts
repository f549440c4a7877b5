/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { Webhook as WebhookVerifier } from 'standardwebhooks';
import { BLOGS, bearer, BODY, expectJsonError, expectUnauthorized, messagesOf } from './support/blog-api';
import { StatementRunner, Transaction } from '../src/database/statement-runner';
import { WebhooksRepository } from '../src/webhooks/webhooks.repository';
import { useTestApp } from './support/test-app';
import { E2E_ENV } from './support/test-database';
import { eventually, ReceivedHook, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

// /api/v1/webhooks over HTTP, and deliveries by the job library to receivers on this machine.

const WEBHOOKS = '/api/v1/webhooks';
const ALL_EVENTS = ['blog.created', 'blog.updated', 'blog.deleted', 'blog.published'];

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  createdAt: string;
  disabledAt: string | null;
  secret?: string;
}

interface AttemptBody {
  eventId: string;
  attemptedAt: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

interface DeliveredEvent {
  id: string;
  type: string;
  blog: { id: number };
}

describe('/api/v1/webhooks (e2e)', () => {
  const receivers: WebhookReceiver[] = [];
  const t = useTestApp({ JOBS_ENABLED: 'true', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', RATE_LIMIT_ENABLED: 'false' });
  const admin = (): string => bearer(t.token('hooks-admin', { scope: 'webhooks:admin' }));
  const author = (): string => bearer(t.token('hooks-author'));

  afterAll(async () => {
    await Promise.all(receivers.map((receiver) => receiver.close()));
  });

  const receiver = async (): Promise<WebhookReceiver> => {
    const started = await startWebhookReceiver();
    receivers.push(started);
    return started;
  };

  const register = async (url: string, events = ALL_EVENTS): Promise<WebhookBody> => {
    const res = await t.http.post(WEBHOOKS).set('Authorization', admin()).send({ url, events });
    expect(res.status).toBe(201);
    return res.body as WebhookBody;
  };

  const createBlog = async (extra: Record<string, unknown> = {}): Promise<number> => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', author())
      .send({ ...BODY, ...extra });
    expect(res.status).toBe(201);
    return (res.body as { id: number }).id;
  };

  /** The events `hooks` carried, verified against `secret` (throws on a bad signature). */
  const verified = (hooks: readonly ReceivedHook[], secret: string): DeliveredEvent[] =>
    hooks.map(({ headers, body }) => {
      const verifier = new WebhookVerifier(secret);
      return verifier.verify(body, headers as Record<string, string>) as DeliveredEvent;
    });

  describe('registration', () => {
    it('answers 201 with the secret once, then shows the webhook without it', async () => {
      const created = await register('http://127.0.0.1:9/hook', ['blog.published']);

      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        url: 'http://127.0.0.1:9/hook',
        events: ['blog.published'],
        createdAt: expect.any(String),
        disabledAt: null,
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      });
      const one = await t.http.get(`${WEBHOOKS}/${created.id}`).set('Authorization', admin());
      const list = await t.http.get(WEBHOOKS).set('Authorization', admin());
      const { secret: _secret, ...shown } = created;
      expect(one.status).toBe(200);
      expect(one.body).toEqual(shown);
      expect(list.body.data).toContainEqual(shown);
    });

    it.each([
      ['https://127.0.0.2/hook', 'loopback'],
      ['https://[::1]/hook', 'loopback'],
      ['https://10.1.2.3/hook', 'private'],
      ['https://192.168.0.10/hook', 'private'],
      ['https://169.254.169.254/latest', 'metadata'],
      ['https://[fd00:ec2::254]/', 'metadata'],
      ['https://100.64.0.1/', 'shared'],
      ['https://[::ffff:10.0.0.1]/', 'private'],
      ['https://0.0.0.0/', ''],
      ['https://224.0.0.1/', 'multicast'],
      ['https://192.0.2.1/', 'documentation'],
      ['http://93.184.216.34/', 'https'],
      ['ftp://93.184.216.34/', ''],
      ['https://user:pw@93.184.216.34/', 'credentials'],
      ['https://does-not-exist.invalid/', 'resolve'],
      ['not a url', ''],
    ])('refuses %s with 400 and stores nothing', async (url, word) => {
      const before = (await t.http.get(WEBHOOKS).set('Authorization', admin())).body.data.length;
      const res = await t.http.post(WEBHOOKS).set('Authorization', admin()).send({ url, events: ALL_EVENTS });

      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toContain(word);
      expect((await t.http.get(WEBHOOKS).set('Authorization', admin())).body.data).toHaveLength(before);
    });

    it('tells, outside production, that WEBHOOK_ALLOWED_HOSTS can let a refused development host through', async () => {
      const res = await t.http
        .post(WEBHOOKS)
        .set('Authorization', admin())
        .send({ url: 'https://10.1.2.3/', events: ALL_EVENTS });

      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toMatch(/private address \(10\.1\.2\.3\).*WEBHOOK_ALLOWED_HOSTS/);
    });

    it.each([
      [{ url: 'https://example.com/', events: [] }, 'events'],
      [{ url: 'https://example.com/', events: ['blog.read'] }, 'events'],
      [{ url: 'https://example.com/', events: ['blog.created', 'blog.created'] }, 'events'],
      [{ url: 'https://example.com/' }, 'events'],
      [{ events: ALL_EVENTS }, 'url'],
      [{ url: 42, events: ALL_EVENTS }, 'url'],
    ])('refuses the body %j with 400 naming %s', async (body, name) => {
      const res = await t.http.post(WEBHOOKS).set('Authorization', admin()).send(body);

      expectJsonError(res, 400);
      expect(messagesOf(res).some((message) => message.includes(name))).toBe(true);
    });

    it.each([
      ['get', WEBHOOKS],
      ['post', WEBHOOKS],
      ['get', `${WEBHOOKS}/00000000-0000-4000-8000-000000000000/deliveries`],
    ] as const)('%s %s: 401 without a token, 403 without webhooks:admin', async (method, path) => {
      expectUnauthorized(await t.http[method](path));
      const res = await t.http[method](path).set('Authorization', bearer(t.token('x', { scope: 'blogs:admin' })));
      expectJsonError(res, 403);
    });

    it.each<[string, Record<string, unknown>, { detail: string; pointer: string }[]]>([
      ['url a number', { url: 5, events: ALL_EVENTS }, [{ detail: 'url must be a string', pointer: '/url' }]],
      [
        'url an array',
        { url: ['https://example.com/'], events: ALL_EVENTS },
        [{ detail: 'url must be a string', pointer: '/url' }],
      ],
      [
        'events a string',
        { url: 'https://example.com/', events: 'blog.created' },
        [{ detail: 'events must be an array', pointer: '/events' }],
      ],
      [
        'events a number',
        { url: 'https://example.com/', events: 5 },
        [{ detail: 'events must be an array', pointer: '/events' }],
      ],
      [
        'an event type a number',
        { url: 'https://example.com/', events: ['blog.created', 5] },
        [{ detail: 'events[1] must be a string', pointer: '/events/1' }],
      ],
    ])('refuses %s with 400 naming the type it must have', async (_name, body, errors) => {
      const res = await t.http.post(WEBHOOKS).set('Authorization', admin()).send(body);

      expectJsonError(res, 400);
      expect(res.body.errors).toEqual(errors);
      expect(res.body.message).toEqual(errors.map((e) => e.detail));
    });

    it('deletes with 204, then answers 404; a malformed id is 400', async () => {
      const { id } = await register('http://127.0.0.1:9/hook');

      expect((await t.http.delete(`${WEBHOOKS}/${id}`).set('Authorization', admin())).status).toBe(204);
      expectJsonError(await t.http.delete(`${WEBHOOKS}/${id}`).set('Authorization', admin()), 404);
      expectJsonError(await t.http.get(`${WEBHOOKS}/${id}/deliveries`).set('Authorization', admin()), 404);
      expectJsonError(await t.http.get(`${WEBHOOKS}/not-a-uuid`).set('Authorization', admin()), 400);
    });
    describe('deleted while attempts are recorded', () => {
      const onServer = process.env[E2E_ENV.serverUrl] ? it : it.skip;
      const failure = { attemptedAt: new Date(), statusCode: 500, durationMs: 1, error: 'answered 500' } as const;

      /** `n` pending deliveries of `webhookId`, already queued (no job of this app attempts them). */
      const deliveries = async (webhookId: string, n: number): Promise<string[]> => {
        const rows = await t.dataSource.query<{ id: string }[]>(
          `INSERT INTO "webhook_deliveries" ("webhook_id", "event_id", "queued")
           SELECT $1, n, true FROM generate_series(1, $2::int) n RETURNING "id"::text AS "id"`,
          [webhookId, n],
        );
        return rows.map((row) => row.id);
      };

      /** Rows of `webhookId` left in the webhook tables. */
      const leftOver = async (webhookId: string): Promise<number> => {
        const [{ n }] = await t.dataSource.query<{ n: number }[]>(
          `SELECT (SELECT count(*) FROM "webhooks" WHERE "id" = $1) + (SELECT count(*) FROM "webhook_deliveries"
             WHERE "webhook_id" = $1) + (SELECT count(*) FROM "webhook_attempts" WHERE "webhook_id" = $1) AS "n"`,
          [webhookId],
        );
        return Number(n);
      };

      /** Records attempt 1 of `deliveryId` as failed, as the delivery job does; `beforeLog` runs before its log row. */
      const settle = (deliveryId: string, beforeLog: () => Promise<void> = () => Promise.resolve()) =>
        t.app.get(StatementRunner).transaction((transaction) => {
          const paused: Transaction = {
            connection: transaction.connection,
            query: async (statement, values) => {
              if (statement.name === 'webhooks.log') await beforeLog();
              return transaction.query(statement, values);
            },
          };
          return t.app.get(WebhooksRepository).settle(paused, deliveryId, 1, 'pending', failure);
        });

      onServer('PostgreSQL: a delete that waits on attempts being recorded answers 204 once they commit', async () => {
        const webhook = await register('http://127.0.0.1:9/hook', ['blog.deleted']);
        const racers = 4; // with the delete and this test's reads, within the pool of 10
        let release!: () => void;
        const released = new Promise<void>((resolve) => (release = resolve));
        let held = 0;
        const settled = Promise.all(
          (await deliveries(webhook.id, racers)).map((id) =>
            settle(id, () => {
              held += 1;
              return released;
            }),
          ),
        );
        await eventually(() => held === racers, 'every attempt holding its delivery, before its log row');
        const deleted = t.http
          .delete(`${WEBHOOKS}/${webhook.id}`)
          .set('Authorization', admin())
          .then((res) => res);
        await eventually(async () => {
          const [{ n }] = await t.dataSource.query<{ n: number }[]>(
            `SELECT count(*)::int AS "n" FROM pg_stat_activity
             WHERE "datname" = current_database() AND "wait_event_type" = 'Lock' AND "query" LIKE 'DELETE FROM "webhooks"%'`,
          );
          return n === 1;
        }, 'the delete waiting on a lock');
        release();

        expect((await deleted).status).toBe(204);
        await expect(settled).resolves.toEqual(Array.from({ length: racers }, () => true));
        await expect(leftOver(webhook.id)).resolves.toBe(0);
      });

      onServer(
        'PostgreSQL: deletes released together with attempts being recorded answer 204, and leave nothing',
        async () => {
          const webhooks = await Promise.all(Array.from({ length: 5 }, () => register('http://127.0.0.1:9/hook')));
          const attempts = await Promise.all(webhooks.map((webhook) => deliveries(webhook.id, 3)));

          const [deletes, settles] = await Promise.all([
            Promise.all(webhooks.map(({ id }) => t.http.delete(`${WEBHOOKS}/${id}`).set('Authorization', admin()))),
            Promise.allSettled(attempts.flat().map((id) => settle(id))),
          ]);

          expect(deletes.map((res) => res.status)).toEqual(webhooks.map(() => 204));
          expect(settles.filter((outcome) => outcome.status === 'rejected')).toEqual([]);
          for (const webhook of webhooks) await expect(leftOver(webhook.id)).resolves.toBe(0);
        },
      );
    });
  });

  describe('delivery', () => {
    it('POSTs each later event, signed as Standard Webhooks asks, and logs the attempts', async () => {
      const hook = await receiver();
      const webhook = await register(hook.url);
      const id = await createBlog();

      await eventually(() => hook.received.length >= 2, 'blog.created and blog.published');
      const events = verified(hook.received, webhook.secret!);
      expect(events.map((event) => [event.type, event.blog.id]).sort()).toEqual([
        ['blog.created', id],
        ['blog.published', id],
      ]);
      expect(hook.received.map(({ headers }) => headers['webhook-id']).sort()).toEqual(
        events.map((event) => event.id).sort(),
      );
      await eventually(async () => {
        const log = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin());
        return (log.body.data as AttemptBody[]).length === 2;
      }, 'two logged attempts');
      const log = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin());
      const metrics = (await t.http.get('/metrics').expect(200)).text;
      expect(
        Number(/^webhook_delivery_attempts_total\{outcome="success"\} (\d+)$/m.exec(metrics)?.[1]),
      ).toBeGreaterThanOrEqual(2);
      expect(metrics).toMatch(/^webhook_deliveries_pending \d+$/m);
      expect(metrics).toMatch(/^webhook_oldest_pending_delivery_seconds [\d.e+-]+$/m);
      expect(log.body.data).toEqual(
        events.map(() => ({
          eventId: expect.any(String),
          attemptedAt: expect.any(String),
          statusCode: 200,
          durationMs: expect.any(Number),
          error: null,
        })),
      );
    });

    it('retries an event its receiver refused, and the log shows both attempts, newest first', async () => {
      const hook = await receiver();
      hook.answerWith((index) => (index === 0 ? 500 : 204));
      const webhook = await register(hook.url, ['blog.created']);
      await createBlog();

      await eventually(() => hook.received.length >= 2, 'the retry');
      expect(new Set(hook.received.map(({ headers }) => headers['webhook-id'])).size).toBe(1);
      await eventually(async () => {
        const log = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin());
        return (log.body.data as AttemptBody[]).length === 2;
      }, 'two logged attempts');
      const log = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin());
      expect((log.body.data as AttemptBody[]).map(({ statusCode, error }) => [statusCode, error])).toEqual([
        [204, null],
        [500, 'answered 500'],
      ]);
    });

    it('publishes a scheduled blog by the clock, once, and delivers its blog.published', async () => {
      const hook = await receiver();
      const webhook = await register(hook.url, ['blog.published']);
      const id = await createBlog({ publishedAt: new Date(Date.now() + 2_000).toISOString() });

      await eventually(() => hook.received.length >= 1, 'blog.published by the clock');
      const [event] = verified(hook.received, webhook.secret!);
      expect(event).toMatchObject({ type: 'blog.published', blog: { id, status: 'published' } });
      const feed = await t.http
        .get('/api/v1/changes?limit=1000')
        .set('Authorization', bearer(t.token('reader', { scope: 'events:read' })));
      const published = (feed.body.data as DeliveredEvent[]).filter(
        (e) => e.type === 'blog.published' && e.blog.id === id,
      );
      expect(published).toHaveLength(1);
    });

    it('disables a webhook whose attempts have failed for 5 days, and gives up its deliveries', async () => {
      const hook = await receiver();
      hook.answerWith(500);
      const webhook = await register(hook.url, ['blog.created']);
      await t.dataSource.query(`UPDATE "webhooks" SET "failing_since" = now() - interval '5 days' WHERE "id" = $1`, [
        webhook.id,
      ]);
      await createBlog();

      await eventually(async () => {
        const res = await t.http.get(`${WEBHOOKS}/${webhook.id}`).set('Authorization', admin());
        return (res.body as WebhookBody).disabledAt !== null;
      }, 'the webhook disabled');
      // On the primary, which under synchronous replication (TEST_WITH_REPLICA) shows a commit to other sessions a moment
      // after the replica the API read from does.
      await eventually(async () => {
        const pending = await t.dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS "n" FROM "webhook_deliveries" WHERE "webhook_id" = $1 AND "state" = 'pending'`,
          [webhook.id],
        );
        return pending[0].n === 0;
      }, 'no delivery of it pending');
      expect(hook.received).toHaveLength(1);
    });

    it('keeps delivering to one receiver while another hangs', async () => {
      const stuck = await receiver();
      stuck.answerWith('hang');
      const fine = await receiver();
      await register(stuck.url, ['blog.created']);
      await register(fine.url, ['blog.created']);
      for (let i = 0; i < 15; i += 1) await createBlog();

      await eventually(() => fine.received.length >= 15, 'every event at the receiver that answers');
      expect(stuck.received.length).toBeLessThanOrEqual(15);
    });
  });

  describe('history', () => {
    it("keeps finished deliveries 7 days, pending ones until they finish, and each webhook's last 100 attempts", async () => {
      const [kept, short] = [
        await register((await receiver()).url, ['blog.deleted']),
        await register((await receiver()).url, ['blog.deleted']),
      ];
      const attempts = (webhook: WebhookBody, n: number) =>
        t.dataSource.query(
          `INSERT INTO "webhook_attempts" ("webhook_id", "event_id", "attempted_at", "duration_ms")
           SELECT $1, n, now(), 1 FROM generate_series(1, $2::int) n`,
          [webhook.id, n],
        );
      await attempts(kept, 105);
      await attempts(short, 3);
      await t.dataSource.query(
        `INSERT INTO "webhook_deliveries" ("webhook_id", "event_id", "state", "queued", "created_at") VALUES
          ($1, 1001, 'delivered', true, now() - interval '8 days'), ($1, 1002, 'failed', true, now() - interval '8 days'),
          ($1, 1003, 'pending', true, now() - interval '8 days'), ($1, 1004, 'delivered', true, now() - interval '6 days')`,
        [kept.id],
      );

      const pruned = await t.app.get(WebhooksRepository).prune();

      expect(pruned.deliveries).toBeGreaterThanOrEqual(2);
      expect(pruned.attempts).toBeGreaterThanOrEqual(5);
      const deliveries = await t.dataSource.query<{ eventId: string }[]>(
        `SELECT "event_id"::text AS "eventId" FROM "webhook_deliveries" WHERE "webhook_id" = $1 ORDER BY "event_id"`,
        [kept.id],
      );
      expect(deliveries.map((row) => row.eventId)).toEqual(['1003', '1004']);
      const log = async (webhook: WebhookBody): Promise<string[]> => {
        const res = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin());
        return (res.body as { data: AttemptBody[] }).data.map((attempt) => attempt.eventId);
      };
      await expect(log(kept)).resolves.toEqual(Array.from({ length: 100 }, (_, i) => String(105 - i)));
      await expect(log(short)).resolves.toEqual(['3', '2', '1']);
      const [{ n }] = await t.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS "n" FROM "webhook_attempts" WHERE "webhook_id" = $1`,
        [kept.id],
      );
      expect(n).toBe(100);
    });

    it('lists the log newest first by attemptedAt, ties by id, whatever order the attempts were recorded in', async () => {
      const webhook = await register((await receiver()).url, ['blog.deleted']);
      // Recorded (id order) as parallel attempts finish: events 1..4 attempted at +2, +0, +1, +1 ms.
      await t.dataSource.query(
        `INSERT INTO "webhook_attempts" ("webhook_id", "event_id", "attempted_at", "duration_ms")
         SELECT $1, e, timestamptz '2026-01-01T00:00:03.208Z' + make_interval(secs => ms / 1000.0), 1
         FROM unnest(ARRAY[1, 2, 3, 4], ARRAY[2, 0, 1, 1]) AS a(e, ms) ORDER BY e`,
        [webhook.id],
      );

      const res = await t.http.get(`${WEBHOOKS}/${webhook.id}/deliveries`).set('Authorization', admin()).expect(200);

      expect(
        (res.body as { data: AttemptBody[] }).data.map(({ eventId, attemptedAt }) => [eventId, attemptedAt]),
      ).toEqual([
        ['1', '2026-01-01T00:00:03.210Z'],
        ['4', '2026-01-01T00:00:03.209Z'],
        ['3', '2026-01-01T00:00:03.209Z'],
        ['2', '2026-01-01T00:00:03.208Z'],
      ]);
    });
  });
});

/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { QueryRunner } from 'typeorm';
import { BLOGS, bearer, BlogBody, BODY, expectJsonError, expectUnauthorized, messagesOf } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(300_000));

// GET /api/v1/changes over HTTP: the events that writes through the API (and in SQL) make, in commit order, each once.

const CHANGES = '/api/v1/changes';
const OWNER = 'changes-owner';
const DAY = 86_400_000;

interface EventBody {
  id: string;
  type: string;
  occurredAt: string;
  blog: Partial<BlogBody> & { id: number };
}

interface ChangePageBody {
  data: EventBody[];
  nextAfter: string | null;
}

describe('GET /api/v1/changes (e2e)', () => {
  // Rate limits would answer the 50 writers 429: this file tests the feed.
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
  const reader = (): string => bearer(t.token('feed-reader', { scope: 'events:read' }));
  const owner = (): string => bearer(t.token(OWNER));

  /** Creates {@link BODY} with `extra` for `sub` and expects 201: the blog as answered. */
  const create = async (extra: Record<string, unknown> = {}, sub = OWNER): Promise<BlogBody> => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token(sub)))
      .send({ ...BODY, ...extra });
    expect(res.status).toBe(201);
    return res.body as BlogBody;
  };

  /** The 200 page of `GET /changes<query>`. */
  const page = async (query = '', path = CHANGES): Promise<ChangePageBody> => {
    const res = await t.http.get(`${path}${query}`).set('Authorization', reader());
    expect(res.status).toBe(200);
    return res.body as ChangePageBody;
  };

  /** Every event after `after`, walking pages of `limit`. */
  const walk = async (after: string | null, limit = 1000): Promise<{ events: EventBody[]; last: string | null }> => {
    const events: EventBody[] = [];
    let cursor = after;
    for (;;) {
      const body = await page(`?limit=${limit}${cursor === null ? '' : `&after=${cursor}`}`);
      events.push(...body.data);
      if (body.data.length === 0) return { events, last: cursor };
      cursor = body.nextAfter;
    }
  };

  /** Runs `work` in a transaction on a connection of its own; one that `work` leaves open is rolled back. */
  const inTransaction = async (work: (runner: QueryRunner) => Promise<void>): Promise<void> => {
    const runner = t.dataSource.createQueryRunner();
    await runner.connect();
    try {
      await runner.startTransaction();
      await work(runner);
    } finally {
      if (runner.isTransactionActive) await runner.rollbackTransaction();
      await runner.release();
    }
  };

  /** The feed's end now: the id to read later events after. */
  const end = async (): Promise<string | null> => (await walk(null)).last;

  describe('access', () => {
    it('is 401 without a token, with its challenge', async () => {
      expectUnauthorized(await t.http.get(CHANGES));
    });

    it.each([
      ['no scope', undefined],
      ['blogs:admin only', 'blogs:admin'],
      ['webhooks:admin only', 'webhooks:admin'],
    ])('is 403 for a token with %s', async (_name, scope) => {
      const res = await t.http.get(CHANGES).set('Authorization', bearer(t.token('someone', { scope })));
      expectJsonError(res, 403);
      expect(res.body.message).toBe('This operation requires a token with the scope events:read');
    });

    it.each([CHANGES, '/api/changes', '/v1/changes'])('serves %s with events:read among other scopes', async (path) => {
      const res = await t.http
        .get(path)
        .set('Authorization', bearer(t.token('reader', { scope: 'blogs:admin events:read' })));
      expect(res.status).toBe(200);
      expect(Object.keys(res.body as object).sort()).toEqual(['data', 'nextAfter']);
    });
  });

  describe('query', () => {
    it.each([
      ['after=-1', 'after'],
      ['after=01', 'after'],
      ['after=1.5', 'after'],
      ['after=abc', 'after'],
      ['after=', 'after'],
      ['after=9223372036854775808', 'after'],
      ['after=1&after=2', 'after'],
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=01', 'limit'],
      ['limit=ten', 'limit'],
      ['since=1', 'since'],
    ])('%s is 400 naming %s', async (query, name) => {
      const res = await t.http.get(`${CHANGES}?${query}`).set('Authorization', reader());
      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toContain(name);
    });

    it.each([
      ['limit=ten', 'limit must be an integer in decimal digits, without sign or leading zeros'],
      ['limit=01', 'limit must be an integer in decimal digits, without sign or leading zeros'],
      ['limit=0', 'limit must not be less than 1'],
      ['limit=1001', 'limit must not be greater than 1000'],
    ])('%s is 400 saying what limit must be, its type first', async (query, message) => {
      const res = await t.http.get(`${CHANGES}?${query}`).set('Authorization', reader());
      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual([message]);
    });

    it('takes the largest event id and limit 1000', async () => {
      const body = await page('?after=9223372036854775807&limit=1000');
      expect(body).toEqual({ data: [], nextAfter: '9223372036854775807' });
    });
  });

  describe('events of writes through the API', () => {
    it('a live create makes blog.created then blog.published, with the blog as its owner reads it', async () => {
      const after = await end();
      const created = await create({ tags: ['Event Tag'] });
      const { events, last } = await walk(after);
      expect(events.map((e) => e.type)).toEqual(['blog.created', 'blog.published']);
      const read = await t.http.get(`${BLOGS}/${created.id}`).set('Authorization', owner());
      for (const event of events) {
        expect(event.blog).toEqual(read.body);
        expect(event.id).toMatch(/^[1-9][0-9]*$/);
        expect(new Date(event.occurredAt).toISOString()).toBe(event.occurredAt);
      }
      expect(BigInt(events[1].id)).toBeGreaterThan(BigInt(events[0].id));
      expect(last).toBe(events[1].id);
    });

    it('a draft makes blog.created alone; publishing it makes blog.updated then blog.published; unpublishing blog.updated', async () => {
      const after = await end();
      const draft = await create({ status: 'draft' });
      const id = draft.id;
      const published = await t.http
        .patch(`${BLOGS}/${id}`)
        .set('Authorization', owner())
        .send({ status: 'published' });
      expect(published.status).toBe(200);
      const unpublished = await t.http.patch(`${BLOGS}/${id}`).set('Authorization', owner()).send({ status: 'draft' });
      expect(unpublished.status).toBe(200);
      const { events } = await walk(after);
      expect(events.map((e) => [e.type, e.blog.status, e.blog.id])).toEqual([
        ['blog.created', 'draft', id],
        ['blog.updated', 'published', id],
        ['blog.published', 'published', id],
        ['blog.updated', 'draft', id],
      ]);
      expect(events[3].blog).toEqual(unpublished.body);
    });

    it('a scheduled create makes blog.created alone, with status scheduled', async () => {
      const after = await end();
      const publishedAt = new Date(Date.now() + DAY).toISOString();
      const created = await create({ publishedAt });
      const { events } = await walk(after);
      expect(events.map((e) => [e.type, e.blog.status, e.blog.publishedAt])).toEqual([
        ['blog.created', 'scheduled', publishedAt],
      ]);
      expect(events[0].blog.id).toBe(created.id);
    });

    it('PUT makes blog.updated and DELETE blog.deleted with only the id and slug', async () => {
      const created = await create();
      const after = await end();
      const put = await t.http
        .put(`${BLOGS}/${created.id}`)
        .set('Authorization', owner())
        .send({ title: 'Replaced', content: 'New content', author: 'Bob' });
      expect(put.status).toBe(200);
      const deleted = await t.http.delete(`${BLOGS}/${created.id}`).set('Authorization', owner());
      expect(deleted.status).toBe(204);
      const { events } = await walk(after);
      expect(events.map((e) => e.type)).toEqual(['blog.updated', 'blog.deleted']);
      expect(events[0].blog).toEqual(put.body);
      expect(events[1].blog).toEqual({ id: created.id, slug: created.slug });
    });

    it.each([
      ['an invalid body', 'post', BLOGS, { title: '' }, undefined, 400],
      ['a failed precondition', 'put', 'own', { title: 'X', content: 'Y', author: 'Z' }, '"0-0"', 412],
      ["another owner's blog", 'patch', 'other', { title: 'X' }, undefined, 403],
      ['a missing blog', 'delete', `${BLOGS}/2147483647`, undefined, undefined, 404],
    ])('a refused write (%s) makes none', async (_name, method, target, body, ifMatch, status) => {
      const own = await create();
      const other = await create({}, 'someone-else');
      const path = target === 'own' ? `${BLOGS}/${own.id}` : target === 'other' ? `${BLOGS}/${other.id}` : target;
      const after = await end();
      let call = t.http[method as 'post'](path).set('Authorization', owner());
      if (ifMatch !== undefined) call = call.set('If-Match', ifMatch);
      const res = body === undefined ? await call : await call.send(body);
      expect(res.status).toBe(status);
      expect(await page(`?after=${after}`)).toEqual({ data: [], nextAfter: after });
    });
  });

  describe('order and completeness', () => {
    // The embedded database has one connection: its transactions cannot overlap, so none can commit out of order.
    const itWithOverlappingTransactions = process.env.E2E_SERVER_URL ? it : it.skip;

    itWithOverlappingTransactions(
      'gives an event committed late the next id after those read: none is skipped',
      async () => {
        // An update, not an insert: an insert would hold the blog counter's row, and the create below would wait for it.
        const updated = await create({ status: 'draft' });
        const after = await end();
        await inTransaction(async (late) => {
          // Written first (the lower outbox position), committed last.
          await late.query(`UPDATE blogs SET title = 'Committed last', version = version + 1 WHERE id = $1`, [
            updated.id,
          ]);
          const early = await create({ status: 'draft' });
          const first = await walk(after);
          expect(first.events.map((e) => [e.type, e.blog.id])).toEqual([['blog.created', early.id]]);
          await late.commitTransaction();
          const second = await walk(first.last);
          expect(second.events.map((e) => [e.type, e.blog.id, e.blog.title])).toEqual([
            ['blog.updated', updated.id, 'Committed last'],
          ]);
          expect(BigInt(second.events[0].id)).toBeGreaterThan(BigInt(first.events[0].id));
        });
      },
    );

    it('a rolled-back write makes no event', async () => {
      const after = await end();
      await inTransaction(async (gone) => {
        await gone.query(
          `INSERT INTO blogs (title, content, author, owner_sub, slug) VALUES ('Gone', 'Rolled back', 'SQL', $1, 'changes-gone')`,
          [OWNER],
        );
        await gone.rollbackTransaction();
      });
      expect(await page(`?after=${after}`)).toEqual({ data: [], nextAfter: after });
    });

    it('pages by limit: nextAfter is the last id of the page and the next page starts after it', async () => {
      const after = await end();
      for (let i = 0; i < 3; i += 1) await create({ status: 'draft' });
      const one = await page(`?after=${after}&limit=2`);
      const two = await page(`?after=${one.nextAfter}&limit=2`);
      expect(one.data).toHaveLength(2);
      expect(one.nextAfter).toBe(one.data[1].id);
      expect(two.data).toHaveLength(1);
      expect([...one.data, ...two.data].map((e) => e.type)).toEqual(['blog.created', 'blog.created', 'blog.created']);
    });

    it('2,000 events from 50 concurrent writers, read while they write: each exactly once, every blog in order', async () => {
      const after = await end();
      const WRITERS = 50;
      const CREATES_PER_WRITER = 20; // a live create makes two events
      let writing = true;
      const seen: EventBody[] = [];
      const read = (async () => {
        let cursor = after;
        for (;;) {
          const done = !writing;
          const body = await page(`?limit=1000${cursor === null ? '' : `&after=${cursor}`}`);
          seen.push(...body.data);
          cursor = body.nextAfter;
          if (done && body.data.length === 0) return;
        }
      })();
      const token = owner();
      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          for (let i = 0; i < CREATES_PER_WRITER; i += 1) {
            const res = await t.http
              .post(BLOGS)
              .set('Authorization', token)
              .send({ title: `Feed ${w} ${i}`, content: 'Concurrent', author: 'Writer' });
            expect(res.status).toBe(201);
          }
        }),
      ).finally(() => {
        writing = false;
      });
      await read;
      expect(seen).toHaveLength(WRITERS * CREATES_PER_WRITER * 2);
      const ids = seen.map((e) => BigInt(e.id));
      expect(ids.every((id, i) => i === 0 || id > ids[i - 1])).toBe(true);
      const typesByBlog = new Map<number, string[]>();
      for (const e of seen) typesByBlog.set(e.blog.id, [...(typesByBlog.get(e.blog.id) ?? []), e.type]);
      expect(typesByBlog.size).toBe(WRITERS * CREATES_PER_WRITER);
      expect(new Set([...typesByBlog.values()].map((types) => types.join()))).toEqual(
        new Set(['blog.created,blog.published']),
      );
    });
  });
});

/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { BLOGS, bearer, BODY, BlogBody, expectJsonError, expectUnauthorized, messagesOf } from './support/blog-api';
import { releasedTogether } from './support/row-lock-race';
import { E2E_ENV } from './support/test-database';
import { useTestApp } from './support/test-app';
import { eventually, startWebhookReceiver, WebhookReceiver } from './support/webhook-receiver';

// A blog's revisions over HTTP: what writes keep, list, read, restore, who may, pruning, deletion, events, purges.

const revisionsOf = (blogId: number | string, prefix = '/api/v1'): string => `${prefix}/blogs/${blogId}/revisions`;

interface RevisionBody {
  version: number;
  title: string;
  content?: string;
  author: string;
  tags: string[];
  createdAt: string;
  changed: string[];
}

interface RevisionListBody {
  data: RevisionBody[];
  total: number;
  limit: number;
  offset: number | null;
  nextCursor: string | null;
}

/** A fresh subject, so that no test shares another's blogs. */
const sub = (name: string): string => `${name}-${randomUUID()}`;

/** The version an `ETag` names. */
const versionOf = (res: Response): number => Number(/^"\d+-(\d+)(?:-[a-z]+)?"$/.exec(res.headers.etag)?.[1]);

describe('revisions (e2e)', () => {
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  describe('with the default REVISIONS_KEPT', () => {
    const t = useTestApp(() => ({ RATE_LIMIT_ENABLED: 'false', JOBS_ENABLED: 'true', CACHE_PURGE_URLS: receiver.url }));
    const auth = (who: string, scope?: string): string => bearer(t.token(who, scope ? { scope } : {}));
    const admin = (): string => auth('revisions-admin', 'blogs:admin');

    /** A blog of `owner` from `extra` over {@link BODY}: the 201 answer. */
    const create = async (owner: string, extra: Record<string, unknown> = {}): Promise<Response> => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth(owner))
        .send({ ...BODY, ...extra });
      expect(res.status).toBe(201);
      return res;
    };

    /** PATCH of blog `id` by `owner` with `changes`, expecting 200. */
    const patch = async (id: number, owner: string, changes: Record<string, unknown>): Promise<Response> => {
      const res = await t.http.patch(`${BLOGS}/${id}`).set('Authorization', auth(owner)).send(changes);
      expect(res.status).toBe(200);
      return res;
    };

    const list = (id: number | string, who: string, query = '') =>
      t.http.get(`${revisionsOf(id)}${query}`).set('Authorization', who);

    const read = (id: number | string, version: number | string, who: string) =>
      t.http.get(`${revisionsOf(id)}/${version}`).set('Authorization', who);

    const restore = (id: number | string, version: number | string, who: string) =>
      t.http.post(`${revisionsOf(id)}/${version}/restore`).set('Authorization', who);

    /** The stored revisions of blog `id`, oldest first. */
    const stored = async (id: number): Promise<{ version: number; seq: number }[]> =>
      t.dataSource.query(`SELECT "version", "seq" FROM "blog_revisions" WHERE "blog_id" = $1 ORDER BY "seq"`, [id]);

    it('keeps a revision per write of title, content, author or tags, numbered by the ETag, with what changed', async () => {
      const owner = sub('alice');
      const created = await create(owner, { tags: ['NestJS'] });
      const id = (created.body as BlogBody).id;
      const titled = await patch(id, owner, { title: 'Second title' });
      const put = await t.http
        .put(`${BLOGS}/${id}`)
        .set('Authorization', auth(owner))
        .send({ ...BODY, title: 'Second title', content: 'New content', tags: ['NestJS', 'Databases'] });
      expect(put.status).toBe(200);
      const tagged = await patch(id, owner, { tags: ['Databases'] });
      await patch(id, owner, { status: 'draft' });
      const renamed = await patch(id, owner, { slug: `renamed-${id}` });
      await patch(id, owner, { author: BODY.author, title: 'Second title' });

      const res = await list(id, auth(owner));
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = res.body as RevisionListBody;
      expect(body).toMatchObject({ total: 4, limit: 10, offset: 0, nextCursor: null });
      expect(
        body.data.map(({ version, title, author, tags, changed }) => ({ version, title, author, tags, changed })),
      ).toEqual([
        { version: versionOf(tagged), title: 'Second title', author: 'Alice', tags: ['Databases'], changed: ['tags'] },
        {
          version: versionOf(put),
          title: 'Second title',
          author: 'Alice',
          tags: ['NestJS', 'Databases'],
          changed: ['content', 'tags'],
        },
        { version: versionOf(titled), title: 'Second title', author: 'Alice', tags: ['NestJS'], changed: ['title'] },
        {
          version: versionOf(created),
          title: BODY.title,
          author: 'Alice',
          tags: ['NestJS'],
          changed: ['title', 'content', 'author', 'tags'],
        },
      ]);
      expect(body.data.every((item) => !('content' in item))).toBe(true);
      expect(versionOf(renamed)).toBe(versionOf(tagged) + 2);
      expect(body.data[0].createdAt).toBe((tagged.body as BlogBody).updatedAt);
      expect(body.data[3].createdAt).toBe((created.body as BlogBody).createdAt);

      const one = await read(id, versionOf(put), auth(owner));
      expect(one.status).toBe(200);
      expect(one.headers['cache-control']).toBe('no-store');
      expect(one.body).toStrictEqual({
        version: versionOf(put),
        title: 'Second title',
        content: 'New content',
        author: 'Alice',
        tags: ['NestJS', 'Databases'],
        createdAt: (put.body as BlogBody).updatedAt,
        changed: ['content', 'tags'],
      });
    });

    it('restores a revision as an update: a new version and revision; status, publishedAt and slug stay', async () => {
      const owner = sub('alice');
      const created = await create(owner, { tags: ['One'] });
      const { id } = created.body as BlogBody;
      await patch(id, owner, { title: 'Changed', content: 'Changed content', tags: ['Two'] });
      const draft = await patch(id, owner, { status: 'draft', slug: `moved-${id}` });

      const res = await restore(id, versionOf(created), auth(owner));
      expect(res.status).toBe(200);
      expect(versionOf(res)).toBe(versionOf(draft) + 1);
      expect(res.body).toMatchObject({
        id,
        title: BODY.title,
        content: BODY.content,
        author: BODY.author,
        tags: ['One'],
        status: 'draft',
        publishedAt: null,
        slug: `moved-${id}`,
      });
      expect((await t.http.get(`${BLOGS}/${id}`).set('Authorization', auth(owner))).headers.etag).toBe(
        res.headers.etag,
      );
      const newest = (await list(id, auth(owner))).body as RevisionListBody;
      expect(newest.total).toBe(3);
      expect(newest.data[0]).toMatchObject({ version: versionOf(res), changed: ['title', 'content', 'tags'] });
    });

    it('restoring the text the blog has changes nothing and answers the blog', async () => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      const changed = await patch(id, owner, { status: 'draft' });

      const res = await restore(id, versionOf(created), auth(owner)).set('If-Match', changed.headers.etag);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(changed.headers.etag);
      expect(res.body).toEqual(changed.body);
      expect(await stored(id)).toHaveLength(1);
      const stale = await restore(id, versionOf(created), auth(owner)).set('If-Match', created.headers.etag);
      expectJsonError(stale, 412);
    });

    it('honours If-Match as PUT does', async () => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      const changed = await patch(id, owner, { title: 'Changed' });

      expectJsonError(await restore(id, versionOf(created), auth(owner)).set('If-Match', created.headers.etag), 412);
      expect((await list(id, auth(owner))).body).toMatchObject({ total: 2 });
      const res = await restore(id, versionOf(created), auth(owner)).set('If-Match', changed.headers.etag);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: BODY.title });
    });

    describe('order of checks', () => {
      let owner: string;
      let published: number;
      let draft: number;
      let version: number;

      beforeAll(async () => {
        owner = sub('owner');
        const res = await create(owner);
        published = (res.body as BlogBody).id;
        version = versionOf(res);
        draft = ((await create(owner, { status: 'draft' })).body as BlogBody).id;
      });

      /** A case: who asks (none: no token) for which version of which blog, and whether the list answers alike. */
      interface Case {
        readonly id: number | string;
        readonly version: number | string;
        readonly who?: string;
        /** The message the answer has. */
        readonly message?: string;
      }
      const cases: [string, number, () => Case][] = [
        ['no token', 401, () => ({ id: 'x', version: 'y' })],
        ['a bad id', 400, () => ({ id: '01', version: 1, who: auth(owner), message: 'id must be a positive integer' })],
        ...['0', '+1', '01', '-1', '2147483648'].map((bad): [string, number, () => Case] => [
          `version ${bad}`,
          400,
          () => ({ id: published, version: bad, who: auth(owner), message: 'version must be a positive integer' }),
        ]),
        ['a missing blog', 404, () => ({ id: 2147483647, version: 1, who: auth(owner), message: 'Blog 2147483647' })],
        [
          "another's draft, before ownership",
          404,
          () => ({ id: draft, version: 99, who: auth('stranger'), message: `Blog ${draft} not found` }),
        ],
        [
          "another's published blog",
          403,
          () => ({ id: published, version: 99, who: auth('stranger'), message: 'Only the owner of this blog' }),
        ],
        [
          'a revision never made',
          404,
          () => ({
            id: published,
            version: 99,
            who: auth(owner),
            message: `Revision 99 of blog ${published} not found`,
          }),
        ],
        [
          'an admin, a revision never made',
          404,
          () => ({ id: draft, version: 99, who: admin(), message: `Revision 99 of blog ${draft} not found` }),
        ],
      ];

      it.each(cases)('list, read and restore with %s: %i', async (_name, status, input) => {
        const { id, version: asked, who, message } = input();
        const versionOnly = status === 400 ? message?.startsWith('version') : message?.startsWith('Revision');
        const requests = [
          ...(versionOnly ? [] : [() => t.http.get(revisionsOf(id))]),
          () => t.http.get(`${revisionsOf(id)}/${asked}`),
          () => t.http.post(`${revisionsOf(id)}/${asked}/restore`),
        ];
        for (const request of requests) {
          const res = who === undefined ? await request() : await request().set('Authorization', who);
          if (status === 401) expectUnauthorized(res);
          else expectJsonError(res, status);
          if (message) expect(messagesOf(res).join()).toContain(message);
          expect(res.headers['cache-control']).toBe('no-store');
        }
      });

      it('a kept revision with a failing If-Match is 412, a malformed one 400', async () => {
        expectJsonError(await restore(published, version, auth(owner)).set('If-Match', `"${published}-99"`), 412);
        expectJsonError(await restore(published, version, auth(owner)).set('If-Match', 'nope'), 400);
        expectJsonError(await restore(published, version, auth('stranger')).set('If-Match', `"${published}-99"`), 403);
      });

      it('an admin reads and restores any blog', async () => {
        expect((await read(draft, 1, admin())).status).toBe(200);
        expect((await list(draft, admin())).body).toMatchObject({ total: 1 });
        expect((await restore(draft, 1, admin())).status).toBe(200);
      });
    });

    it('pages by offset and cursor, newest first, with a Link to the next page; a foreign cursor is 400', async () => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      for (let n = 1; n <= 4; n++) await patch(id, owner, { content: `Content ${n}` });

      const all = ((await list(id, auth(owner), '?limit=100')).body as RevisionListBody).data.map((r) => r.version);
      expect(all).toHaveLength(5);
      expect([...all].sort((a, b) => b - a)).toEqual(all);
      const offset = await list(id, auth(owner), '?limit=2&offset=3');
      expect(offset.body).toMatchObject({ total: 5, limit: 2, offset: 3, nextCursor: null });
      expect((offset.body as RevisionListBody).data.map((r) => r.version)).toEqual(all.slice(3));

      const walked: number[] = [];
      let path = `${revisionsOf(id)}?limit=2`;
      for (;;) {
        const res = await t.http.get(path).set('Authorization', auth(owner));
        expect(res.status).toBe(200);
        const page = res.body as RevisionListBody;
        walked.push(...page.data.map((r) => r.version));
        if (page.nextCursor === null) {
          expect(res.headers.link).toBeUndefined();
          break;
        }
        expect(res.headers.link).toBe(
          `<${revisionsOf(id)}?limit=2&cursor=${encodeURIComponent(page.nextCursor)}>; rel="next"`,
        );
        path = `${revisionsOf(id)}?limit=2&cursor=${encodeURIComponent(page.nextCursor)}`;
      }
      expect(walked).toEqual(all);

      const cursor = ((await list(id, auth(owner), '?limit=1')).body as RevisionListBody).nextCursor as string;
      const other = ((await create(owner)).body as BlogBody).id;
      const foreign = await list(other, auth(owner), `?cursor=${encodeURIComponent(cursor)}`);
      expectJsonError(foreign, 400);
      expect(messagesOf(foreign)).toEqual([
        "cursor was made for another blog's revisions: use it with the blog it came from",
      ]);
      const blogCursor = (await t.http.get(`${BLOGS}?limit=1&sort=id`)).body as { nextCursor: string };
      const blogs = await list(id, auth(owner), `?cursor=${encodeURIComponent(blogCursor.nextCursor)}`);
      expect(messagesOf(blogs)).toEqual(['cursor was made for another list: start again from its first page']);
      expectJsonError(await list(id, auth(owner), '?limit=0'), 400);
      expectJsonError(await list(id, auth(owner), '?sort=version'), 400);
    });

    it.each(['/api', '/v1', '/api/v1'])('answers under %s', async (prefix) => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      const res = await t.http.get(revisionsOf(id, prefix)).set('Authorization', auth(owner));
      expect(res.status).toBe(200);
      expect(
        (await t.http.get(`${revisionsOf(id, prefix)}/${versionOf(created)}`).set('Authorization', auth(owner))).status,
      ).toBe(200);
    });

    it('deleting a blog deletes its revisions', async () => {
      const owner = sub('alice');
      const { id } = (await create(owner)).body as BlogBody;
      await patch(id, owner, { title: 'Changed' });
      expect(await stored(id)).toHaveLength(2);
      await t.http.delete(`${BLOGS}/${id}`).set('Authorization', auth(owner)).expect(204);
      expect(await stored(id)).toEqual([]);
      expectJsonError(await list(id, auth(owner)), 404);
    });

    it('a write outside the service that keeps the version rewrites that revision instead of failing', async () => {
      const owner = sub('alice');
      const { id } = (await create(owner)).body as BlogBody;
      const second = await patch(id, owner, { title: 'Second' });
      await t.dataSource.query(`UPDATE "blogs" SET "title" = 'By hand', "author" = 'Hand' WHERE "id" = $1`, [id]);

      expect(await stored(id)).toEqual([
        { version: 1, seq: 1 },
        { version: versionOf(second), seq: 2 },
      ]);
      const revision = await read(id, versionOf(second), auth(owner)).expect(200);
      expect(revision.body).toMatchObject({ title: 'By hand', author: 'Hand', changed: ['title', 'author'] });
    });

    it('a restore with an Idempotency-Key runs once; its replay answers the same', async () => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      await patch(id, owner, { title: 'Changed' });
      const key = randomUUID();

      const first = await restore(id, versionOf(created), auth(owner)).set('Idempotency-Key', key);
      expect(first.status).toBe(200);
      const again = await restore(id, versionOf(created), auth(owner)).set('Idempotency-Key', key);
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.body).toEqual(first.body);
      expect(await stored(id)).toHaveLength(3);
      expectJsonError(await restore(id, 2, auth(owner)).set('Idempotency-Key', key), 422);
    });

    it('a restore makes a blog.updated event and purges as an update does', async () => {
      const owner = sub('alice');
      const created = await create(owner);
      const { id } = created.body as BlogBody;
      await patch(id, owner, { title: 'Changed' });
      const reader = auth('feed-reader', 'events:read');
      // The feed runs the relay first: its newest event is the blog's PATCH.
      let last = '0';
      for (;;) {
        const after = last === '0' ? '' : `&after=${last}`;
        const page = await t.http.get(`/api/v1/changes?limit=1000${after}`).set('Authorization', reader);
        const data = (page.body as { data: { id: string }[] }).data;
        if (data.length === 0) break;
        last = data[data.length - 1].id;
      }
      const from = receiver.received.length;

      const res = await restore(id, versionOf(created), auth(owner));
      expect(res.status).toBe(200);
      const keys = (): string[] =>
        receiver.received.slice(from).flatMap(({ headers }) => String(headers['surrogate-key']).split(' '));
      await eventually(() => keys().includes(`blog-${id}`), `a purge of blog-${id}`, 20_000);
      expect(keys()).toEqual(expect.arrayContaining([`blog-${id}`, 'blogs']));
      const feed = await t.http.get(`/api/v1/changes?after=${last}&limit=100`).set('Authorization', reader);
      expect(feed.status).toBe(200);
      const events = (feed.body as { data: { type: string; blog?: { id: number; title: string } }[] }).data;
      expect(events.filter((event) => event.blog?.id === id).map(({ type, blog }) => [type, blog?.title])).toEqual([
        ['blog.updated', BODY.title],
      ]);
    });
  });

  // On a server, two writers queue on the blog's row lock and go together once it is released; the embedded engine
  // runs one statement at a time, so there is no race to release.
  const onServer = Boolean(process.env[E2E_ENV.serverUrl] ?? process.env.DATABASE_URL);

  (onServer ? describe : describe.skip)('races (PostgreSQL)', () => {
    const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
    const auth = (who: string): string => bearer(t.token(who));

    it('two restores of one revision without If-Match: one makes the version, the other answers it, making none', async () => {
      const owner = sub('alice');
      const created = await t.http.post(BLOGS).set('Authorization', auth(owner)).send(BODY);
      const { id } = created.body as BlogBody;
      const changed = await t.http.patch(`${BLOGS}/${id}`).set('Authorization', auth(owner)).send({ title: 'Two' });
      const restore = () =>
        t.http.post(`${revisionsOf(id)}/${versionOf(created)}/restore`).set('Authorization', auth(owner));

      const answers = await releasedTogether(
        t.dataSource,
        { sql: 'SELECT FROM "blogs" WHERE "id" = $1 FOR UPDATE', parameters: [id] },
        '%UPDATE "blogs"%',
        [restore, restore],
      );

      expect(answers.map((res) => [res.status, versionOf(res), (res.body as BlogBody).title])).toEqual([
        [200, versionOf(changed) + 1, BODY.title],
        [200, versionOf(changed) + 1, BODY.title],
      ]);
      const [stored] = await t.dataSource.query<{ version: number }[]>(
        'SELECT "version" FROM "blogs" WHERE "id" = $1',
        [id],
      );
      expect(stored.version).toBe(versionOf(changed) + 1);
    });

    it.each(['restore', 'PATCH'])(
      'a restore and a %s with the same If-Match: one wins, the other is 412; versions and revisions agree',
      async (other) => {
        const owner = sub('alice');
        const created = await t.http.post(BLOGS).set('Authorization', auth(owner)).send(BODY);
        const { id } = created.body as BlogBody;
        const changed = await t.http.patch(`${BLOGS}/${id}`).set('Authorization', auth(owner)).send({ title: 'Two' });
        const etag = changed.headers.etag;
        const restore = () =>
          t.http
            .post(`${revisionsOf(id)}/${versionOf(created)}/restore`)
            .set('Authorization', auth(owner))
            .set('If-Match', etag);
        const patch = () =>
          t.http.patch(`${BLOGS}/${id}`).set('Authorization', auth(owner)).set('If-Match', etag).send({ content: 'X' });

        const answers = await releasedTogether(
          t.dataSource,
          { sql: 'SELECT FROM "blogs" WHERE "id" = $1 FOR UPDATE', parameters: [id] },
          '%UPDATE "blogs"%',
          [restore, other === 'restore' ? restore : patch],
        );

        expect(answers.map((res) => res.status).sort()).toEqual([200, 412]);
        const winner = answers.find((res) => res.status === 200) as Response;
        expect(versionOf(winner)).toBe(versionOf(changed) + 1);
        const rows = await t.dataSource.query<{ version: number; seq: number; title: string; content: string }[]>(
          `SELECT "version", "seq", "title", "content" FROM "blog_revisions" WHERE "blog_id" = $1 ORDER BY "seq"`,
          [id],
        );
        expect(rows.map(({ version, seq }) => [version, seq])).toEqual([
          [versionOf(created), 1],
          [versionOf(changed), 2],
          [versionOf(winner), 3],
        ]);
        const blog = winner.body as BlogBody;
        expect(rows[2]).toMatchObject({ title: blog.title, content: blog.content });
        const [stored] = await t.dataSource.query<{ version: number }[]>(
          'SELECT "version" FROM "blogs" WHERE "id" = $1',
          [id],
        );
        expect(stored.version).toBe(versionOf(winner));
      },
    );
  });

  describe('the write limit (RATE_LIMIT_WRITES=2)', () => {
    const t = useTestApp({ RATE_LIMIT_WRITES: '2', RATE_LIMIT_WINDOW_SECONDS: '60' });

    it("a restore spends the caller's write budget; reads of revisions do not", async () => {
      const owner = bearer(t.token(sub('alice')));
      const created = await t.http.post(BLOGS).set('Authorization', owner).send(BODY);
      expect(created.status).toBe(201);
      const { id } = created.body as BlogBody;
      for (let n = 0; n < 3; n++)
        expect((await t.http.get(revisionsOf(id)).set('Authorization', owner)).status).toBe(200);
      const restore = () => t.http.post(`${revisionsOf(id)}/${versionOf(created)}/restore`).set('Authorization', owner);
      expect((await restore()).status).toBe(200);
      const limited = await restore();
      expectJsonError(limited, 429);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('REVISIONS_KEPT=3', () => {
    const t = useTestApp({ RATE_LIMIT_ENABLED: 'false', REVISIONS_KEPT: '3' });
    const auth = (who: string): string => bearer(t.token(who));

    it('keeps the newest three revisions of each blog; older ones are 404 and gone from the database', async () => {
      const owner = sub('alice');
      const created = await t.http.post(BLOGS).set('Authorization', auth(owner)).send(BODY);
      const { id } = created.body as BlogBody;
      const versions = [versionOf(created)];
      for (let n = 1; n <= 4; n++) {
        const res = await t.http
          .patch(`${BLOGS}/${id}`)
          .set('Authorization', auth(owner))
          .send({ content: `C${n}` });
        versions.push(versionOf(res));
      }

      const res = await t.http.get(revisionsOf(id)).set('Authorization', auth(owner));
      expect(res.body).toMatchObject({ total: 3 });
      expect((res.body as RevisionListBody).data.map((r) => r.version)).toEqual(versions.slice(2).reverse());
      for (const gone of versions.slice(0, 2)) {
        const old = await t.http.get(`${revisionsOf(id)}/${gone}`).set('Authorization', auth(owner));
        expectJsonError(old, 404);
        expectJsonError(await t.http.post(`${revisionsOf(id)}/${gone}/restore`).set('Authorization', auth(owner)), 404);
      }
      const rows = await t.dataSource.query<{ version: number }[]>(
        `SELECT "version" FROM "blog_revisions" WHERE "blog_id" = $1 ORDER BY "version"`,
        [id],
      );
      expect(rows.map((row) => row.version)).toEqual(versions.slice(2));
    });
  });
});

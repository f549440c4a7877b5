/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Response, Test } from 'supertest';
import {
  bearer,
  BlogBody,
  BlogInput,
  BlogListBody,
  BLOGS,
  blogsFingerprint,
  distinctBlogInput,
  createBlog,
  expectJsonError,
  expectUnauthorized,
  messagesOf,
  storedBlog,
} from './support/blog-api';
import { OpenApiContract } from './support/openapi-contract';
import { useTestApp } from './support/test-app';

// DELETE and PATCH (JSON Merge Patch, RFC 7396) of one blog: the order of checks, ownership,
// conditional requests, content types, partial bodies, and the exact list total. Every rejected
// request is checked to have changed nothing in the database (rows, versions and the counter).

const MERGE_PATCH = 'application/merge-patch+json';
const MISSING_ID = 2_147_483_647;
const OTHER_SECRET = 'another-secret-that-the-service-does-not-know-0123456789';

type Method = 'delete' | 'patch';
const METHODS: readonly Method[] = ['delete', 'patch'];
type Field = 'title' | 'content' | 'author';
const FIELDS: readonly Field[] = ['title', 'content', 'author'];

/** How a request is sent: its token (null: none), extra headers, and for PATCH its body text and type. */
interface Send {
  readonly token?: string | null;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: unknown;
  /** The JSON text as is, instead of `JSON.stringify(body)`. */
  readonly raw?: string;
  /** Content-Type of a PATCH; null sends none. */
  readonly type?: string | null;
}

describe('DELETE and PATCH /api/v1/blogs/:id (e2e)', () => {
  // More writes by one token subject than its default budget per minute.
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
  let alice: string;
  let bob: string;
  let admin: string;

  beforeAll(() => {
    alice = t.token('alice');
    bob = t.token('bob');
    admin = t.token('root', { scope: 'blogs:admin' });
  });

  /** Creates a distinct blog as `sub`: the blog and its ETag. */
  async function create(
    sub = 'alice',
    body: BlogInput = distinctBlogInput(),
  ): Promise<{ blog: BlogBody; etag: string }> {
    const res = await createBlog(t, sub, body);
    return { blog: res.body, etag: res.headers.etag };
  }

  /** `method` on `path` (a blog id or a whole path), alice's token unless told otherwise. */
  function send(method: Method, path: number | string, options: Send = {}): Test {
    const { token = alice, headers = {}, body = { title: 'patched' }, raw, type = MERGE_PATCH } = options;
    const url = typeof path === 'number' ? `${BLOGS}/${path}` : path;
    const req = method === 'delete' ? t.http.delete(url) : t.http.patch(url);
    if (token !== null) req.set('Authorization', bearer(token));
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    if (method === 'delete') return req;
    const text = raw ?? JSON.stringify(body);
    // supertest sends a Buffer without a Content-Type, and text under the type set.
    return type === null ? req.send(Buffer.from(text)) : req.set('Content-Type', type).send(text);
  }

  const patch = (id: number | string, body: unknown, options: Omit<Send, 'body'> = {}): Test =>
    send('patch', id, { ...options, body });
  const remove = (id: number | string, options: Omit<Send, 'body' | 'raw' | 'type'> = {}): Test =>
    send('delete', id, options);

  /** `blogs` ({@link blogsFingerprint}), and the counter's total. */
  async function snapshot(): Promise<string> {
    const [count] = await t.dataSource.query<{ n: string | number }[]>('SELECT sum(n) AS n FROM blog_counts');
    return JSON.stringify({ rows: await blogsFingerprint(t), total: Number(count.n) });
  }

  /** Sends `request`, expects the JSON error `status`, and that the database is exactly as before. */
  async function expectRefused(request: () => Test, status: number): Promise<Response> {
    const before = await snapshot();
    const res = await request();
    expectJsonError(res, status);
    expect(res.headers.etag).toBeUndefined();
    await expect(snapshot()).resolves.toBe(before);
    return res;
  }

  /** The list's `total` and `count(*)`, which must agree. */
  async function totals(): Promise<{ total: number; count: number }> {
    const res = await t.http.get(`${BLOGS}?limit=1`).expect(200);
    const [row] = await t.dataSource.query<{ n: string | number }[]>('SELECT count(*) AS n FROM blogs');
    return { total: (res.body as BlogListBody).total, count: Number(row.n) };
  }

  async function versionOf(id: number): Promise<number> {
    const [row] = await t.dataSource.query<{ version: number }[]>('SELECT version FROM blogs WHERE id = $1', [id]);
    return Number(row.version);
  }

  /** Every id the list holds, walking all pages. */
  async function listedIds(): Promise<number[]> {
    const ids: number[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await t.http.get(`${BLOGS}?limit=100&offset=${offset}`).expect(200)).body as BlogListBody;
      ids.push(...page.data.map((blog) => blog.id));
      if (page.data.length < 100) return ids;
    }
  }

  describe('DELETE', () => {
    it('the owner deletes: 204 without a body; the blog then reads 404, is in no list, and total is one less', async () => {
      const { blog } = await create();
      const { blog: other } = await create();
      const before = await totals();
      expect(before.total).toBe(before.count);

      const res = await remove(blog.id);

      expect(res.status).toBe(204);
      expect(res.text ?? '').toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers.etag).toBeUndefined();
      await expect(storedBlog(t, blog.id)).resolves.toBeUndefined();
      expectJsonError(await t.http.get(`${BLOGS}/${blog.id}`), 404);
      const ids = await listedIds();
      expect(ids).not.toContain(blog.id);
      expect(ids).toContain(other.id);
      await expect(totals()).resolves.toEqual({ total: before.total - 1, count: before.count - 1 });
      await expect(storedBlog(t, other.id)).resolves.toMatchObject({ title: other.title });
    });

    it('a second delete is 404 and changes nothing; so are PUT and PATCH of the deleted blog', async () => {
      const { blog } = await create();
      expect((await remove(blog.id)).status).toBe(204);

      await expectRefused(() => remove(blog.id), 404);
      await expectRefused(() => patch(blog.id, { title: 'back?' }), 404);
      await expectRefused(
        () => t.http.put(`${BLOGS}/${blog.id}`).set('Authorization', bearer(alice)).send(distinctBlogInput()),
        404,
      );
    });

    it("a blogs:admin token deletes anyone's blog: 204", async () => {
      const { blog } = await create('carol');
      expect((await remove(blog.id, { token: admin })).status).toBe(204);
      await expect(storedBlog(t, blog.id)).resolves.toBeUndefined();
    });

    it.each(['/api/blogs', '/v1/blogs', '/API/V1/BLOGS'])(
      '%s/:id deletes as the canonical path does',
      async (prefix) => {
        const { blog } = await create();
        expect((await remove(`${prefix}/${blog.id}`)).status).toBe(204);
        await expect(storedBlog(t, blog.id)).resolves.toBeUndefined();
      },
    );

    it.each([
      ['If-Match with the current tag', (etag: string) => ({ 'If-Match': etag })],
      ['If-Match with a list holding the current tag', (etag: string) => ({ 'If-Match': `"x", ${etag}` })],
      ['If-Match: *', () => ({ 'If-Match': '*' })],
      ['If-None-Match with another tag', () => ({ 'If-None-Match': '"1-999"' })],
    ])('%s: 204', async (_name, headers) => {
      const { blog, etag } = await create();
      expect((await remove(blog.id, { headers: headers(etag) })).status).toBe(204);
      await expect(storedBlog(t, blog.id)).resolves.toBeUndefined();
    });

    it.each([
      ['If-Match with the tag read before an update', (old: string) => ({ 'If-Match': old })],
      ['If-Match with the weak form of the current tag', (_old: string, now: string) => ({ 'If-Match': `W/${now}` })],
      ['If-Match with an empty list', () => ({ 'If-Match': '' })],
      ['If-None-Match with the current tag', (_old: string, now: string) => ({ 'If-None-Match': now })],
      ['If-None-Match: *', () => ({ 'If-None-Match': '*' })],
    ])('%s: 412 and nothing deleted', async (_name, headers) => {
      const { blog, etag } = await create();
      const updated = await patch(blog.id, { content: 'changed meanwhile' }).expect(200);
      await expectRefused(() => remove(blog.id, { headers: headers(etag, updated.headers.etag) }), 412);
    });

    it('ignores a request body, whatever its type: 204', async () => {
      const { blog } = await create();
      const res = await t.http
        .delete(`${BLOGS}/${blog.id}`)
        .set('Authorization', bearer(alice))
        .set('Content-Type', 'text/plain')
        .send('not JSON at all');
      expect(res.status).toBe(204);
      await expect(storedBlog(t, blog.id)).resolves.toBeUndefined();
    });

    it('10 concurrent deletes of one blog: exactly one 204, nine 404; the total stays exact', async () => {
      const { blog } = await create();
      const before = await totals();

      const results = await Promise.all(Array.from({ length: 10 }, () => remove(blog.id)));

      expect(results.map((res) => res.status).sort()).toEqual([204, ...Array<number>(9).fill(404)]);
      await expect(totals()).resolves.toEqual({ total: before.total - 1, count: before.count - 1 });
    });

    it('concurrent creates and deletes keep total equal to count(*)', async () => {
      const doomed = await Promise.all(Array.from({ length: 15 }, () => create()));
      const before = await totals();

      const results = await Promise.all([
        ...doomed.map(({ blog }) => remove(blog.id)),
        ...Array.from({ length: 15 }, () =>
          t.http.post(BLOGS).set('Authorization', bearer(alice)).send(distinctBlogInput()),
        ),
      ]);

      expect(results.map((res) => res.status)).toEqual([
        ...Array<number>(15).fill(204),
        ...Array<number>(15).fill(201),
      ]);
      await expect(totals()).resolves.toEqual({ total: before.total, count: before.count });
    });
  });

  describe('PATCH', () => {
    it.each(FIELDS)(
      'a patch of %s alone sets it and keeps the other fields; createdAt is kept, updatedAt moves forward, the ETag changes',
      async (field) => {
        const { blog, etag } = await create();
        const value = `new ${field} ✓`;

        const res = await patch(blog.id, { [field]: value });

        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual({ ...blog, [field]: value, updatedAt: res.body.updatedAt });
        expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(blog.updatedAt));
        expect(res.headers.etag).toBe(`"${blog.id}-2"`);
        expect(res.headers.etag).not.toBe(etag);
        const { id, title, content, author, createdAt, updatedAt } = res.body as BlogBody;
        await expect(storedBlog(t, blog.id)).resolves.toEqual({
          id,
          title,
          content,
          author,
          createdAt,
          updatedAt,
          ownerSub: 'alice',
        });
        const read = await t.http.get(`${BLOGS}/${blog.id}`).expect(200);
        expect(read.body).toEqual(res.body);
        expect(read.headers.etag).toBe(res.headers.etag);
      },
    );

    it('a patch of all three fields sets them all', async () => {
      const { blog } = await create();
      const changes = distinctBlogInput('all three');
      const res = await patch(blog.id, changes).expect(200);
      expect(res.body).toEqual({ ...blog, ...changes, updatedAt: res.body.updatedAt });
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject(changes);
    });

    it('a patch with the values already stored is still a change: a new version and a later updatedAt (as PUT)', async () => {
      const { blog } = await create();
      const res = await patch(blog.id, { title: blog.title }).expect(200);
      expect(res.body).toEqual({ ...blog, updatedAt: res.body.updatedAt });
      expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.parse(blog.updatedAt));
      await expect(versionOf(blog.id)).resolves.toBe(2);
    });

    it("a blogs:admin token patches anyone's blog: 200, the owner unchanged", async () => {
      const { blog } = await create('carol');
      await patch(blog.id, { author: 'Moderated' }, { token: admin }).expect(200);
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ author: 'Moderated', ownerSub: 'carol' });
    });

    it.each(['/api/blogs', '/v1/blogs'])('%s/:id patches as the canonical path does', async (prefix) => {
      const { blog } = await create();
      await patch(`${prefix}/${blog.id}`, { title: `via ${prefix}` }).expect(200);
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ title: `via ${prefix}` });
    });

    it('strings are stored exactly as sent', async () => {
      const { blog } = await create();
      const text = '  <b>Zoë</b> 😀 e\u0301 漢字 \u200b ';
      const res = await patch(blog.id, { title: text, author: text }).expect(200);
      expect(res.body).toMatchObject({ title: text, author: text, content: blog.content });
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ title: text, author: text });
    });

    describe('content types', () => {
      it.each([
        MERGE_PATCH,
        `${MERGE_PATCH}; charset=utf-8`,
        'Application/Merge-Patch+JSON;charset="UTF-8"',
        'application/json',
        'application/json; charset=utf-8',
      ])('accepts %s', async (type) => {
        const { blog } = await create();
        await patch(blog.id, { content: `sent as ${type}` }, { type }).expect(200);
        await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ content: `sent as ${type}` });
      });

      it.each([
        ['no Content-Type', null],
        ['text/plain', 'text/plain'],
        ['JSON Patch (RFC 6902)', 'application/json-patch+json'],
        ['another +json type', 'application/vnd.api+json'],
        ['a form', 'application/x-www-form-urlencoded'],
        ['a merge patch in latin1', `${MERGE_PATCH}; charset=latin1`],
        ['JSON in utf-16', 'application/json; charset=utf-16'],
      ])('rejects %s with 415 naming both accepted types', async (_name, type) => {
        const { blog } = await create();
        const res = await expectRefused(() => patch(blog.id, { title: 'x' }, { type }), 415);
        expect(messagesOf(res)).toEqual([
          'Content-Type must be application/merge-patch+json or application/json (optionally with charset=utf-8)',
        ]);
        // RFC 5789 §2.2: an unsupported patch document is answered with the types that are.
        expect(res.headers['accept-patch']).toBe('application/merge-patch+json, application/json');
      });

      it.each([
        ['POST', () => t.http.post(BLOGS)],
        ['PUT', () => t.http.put(`${BLOGS}/${MISSING_ID}`)],
      ])('%s keeps refusing a merge patch: 415 naming application/json only', async (_name, request) => {
        const res = await expectRefused(
          () =>
            request()
              .set('Authorization', bearer(alice))
              .set('Content-Type', MERGE_PATCH)
              .send(JSON.stringify(distinctBlogInput())),
          415,
        );
        expect(messagesOf(res)).toEqual(['Content-Type must be application/json (optionally with charset=utf-8)']);
      });
    });

    describe('bodies', () => {
      let id: number;

      beforeAll(async () => {
        ({
          blog: { id },
        } = await create());
      });

      it('{} is 400 naming the fields it may give', async () => {
        const res = await expectRefused(() => patch(id, {}), 400);
        expect(messagesOf(res)).toEqual([
          'request body must give at least one of title, content, author, status, publishedAt, slug, tags',
        ]);
      });

      it.each(FIELDS)(
        '%s: null is 400 naming the field (a merge patch would remove it; no field may go)',
        async (field) => {
          const res = await expectRefused(() => patch(id, { [field]: null }), 400);
          expect(messagesOf(res)).toEqual([`${field} should not be null or undefined`]);
        },
      );

      it('null beside a valid field is 400 and the valid field is not stored either', async () => {
        const res = await expectRefused(() => patch(id, { title: 'would be fine', content: null }), 400);
        expect(messagesOf(res)).toEqual(['content should not be null or undefined']);
      });

      it.each([
        ['id', 5],
        ['createdAt', '2020-01-01T00:00:00.000Z'],
        ['updatedAt', '2020-01-01T00:00:00.000Z'],
        ['ownerSub', 'mallory'],
        ['owner_sub', 'mallory'],
        ['version', 1],
        ['extra', 'x'],
      ])('the unknown property %s is 400 naming it, also beside a valid field', async (key, value) => {
        for (const body of [{ [key]: value }, { title: 'ok', [key]: value }]) {
          const res = await expectRefused(() => patch(id, body), 400);
          expect(messagesOf(res)).toContain(`property ${key} should not exist`);
        }
      });

      it.each([
        ['__proto__', '{"__proto__":{"isAdmin":true},"title":"t"}'],
        ['constructor', '{"constructor":"x","title":"t"}'],
      ])('an own %s key is 400 naming it', async (key, raw) => {
        const res = await expectRefused(() => patch(id, undefined, { raw }), 400);
        expect(messagesOf(res).join(' ')).toContain(key);
      });

      it.each([
        ['title', '201 characters', 'x'.repeat(201)],
        ['author', '101 characters', 'x'.repeat(101)],
        ['content', '100,001 characters', 'x'.repeat(100_001)],
        ['title', 'empty', ''],
        ['author', 'white space only', ' \t\u00a0'],
        ['content', 'with U+0000', 'a\u0000b'],
        ['title', 'a number', 5],
        ['author', 'true', true],
        ['content', 'an array', ['text']],
        ['title', 'an object', { text: 'x' }],
      ])('follows create’s rules: %s %s is 400 naming the field', async (field, _kind, value) => {
        const res = await expectRefused(() => patch(id, { [field]: value }), 400);
        expect(messagesOf(res).every((m) => m.startsWith(field))).toBe(true);
      });

      it('accepts the limits create accepts (200 × 😀 as title, 100 characters of author)', async () => {
        const changes = { title: '😀'.repeat(200), author: 'a'.repeat(100) };
        await patch(id, changes).expect(200);
        await expect(storedBlog(t, id)).resolves.toMatchObject(changes);
      });

      it('a lone surrogate written as a JSON escape is 400 naming the field', async () => {
        const res = await expectRefused(() => patch(id, undefined, { raw: '{"title":"\\ud800"}' }), 400);
        expect(messagesOf(res).join(' ')).toMatch(/^title/);
      });

      it.each([
        ['an empty body', ''],
        ['malformed JSON', '{"title":'],
        ['an array', '[{"title":"t"}]'],
        ['a string', '"title"'],
        ['null (a merge patch that would remove the whole blog)', 'null'],
      ])('%s is 400', async (_name, raw) => {
        await expectRefused(() => patch(id, undefined, { raw }), 400);
      });

      it('a body over 1 MiB is 413', async () => {
        await expectRefused(() => patch(id, { content: 'x'.repeat(1_048_576) }), 413);
      });
    });

    describe('conditional requests', () => {
      it('If-Match with the current tag: 200 and a new tag; that old tag then: 412 and nothing changed', async () => {
        const { blog, etag } = await create();
        const res = await patch(blog.id, { title: 'first' }, { headers: { 'If-Match': etag } }).expect(200);
        expect(res.headers.etag).not.toBe(etag);
        await expectRefused(() => patch(blog.id, { title: 'lost' }, { headers: { 'If-Match': etag } }), 412);
        await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ title: 'first' });
      });

      it.each([
        [
          'If-Match with the weak form of the current tag',
          (etag: string) => ({ 'If-Match': `W/${etag}` }),
          'has changed',
        ],
        ['If-Match with the tag of another blog', () => ({ 'If-Match': '"1-1"' }), 'has changed'],
        ['If-None-Match with the current tag', (etag: string) => ({ 'If-None-Match': etag }), 'has changed'],
        ['If-None-Match: *', () => ({ 'If-None-Match': '*' }), 'exists (If-None-Match: *)'],
      ])('%s: 412 and nothing changed; the message says the blog %s', async (_name, headers, reason) => {
        const { blog, etag } = await create();
        const res = await expectRefused(() => patch(blog.id, { title: 'no' }, { headers: headers(etag) }), 412);
        expect(res.body.message).toMatch(new RegExp(`^Blog ${blog.id} ${reason.replace(/[()*]/g, '\\$&')}`));
      });

      it('If-Match: * and If-None-Match with another tag: 200', async () => {
        const { blog } = await create();
        await patch(blog.id, { title: 'a' }, { headers: { 'If-Match': '*' } }).expect(200);
        await patch(blog.id, { title: 'b' }, { headers: { 'If-None-Match': '"0-0"' } }).expect(200);
        await expect(versionOf(blog.id)).resolves.toBe(3);
      });

      it('20 concurrent patches with the same If-Match: exactly one 200, the others 412; the winner is stored', async () => {
        const { blog, etag } = await create();
        const bodies = Array.from({ length: 20 }, (_, i) => ({ content: `racer ${i}` }));

        const results = await Promise.all(
          bodies.map((body) => patch(blog.id, body, { headers: { 'If-Match': etag } })),
        );

        const statuses = results.map((res) => res.status);
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
        expect(statuses.filter((s) => s === 412)).toHaveLength(19);
        const winner = statuses.indexOf(200);
        await expect(storedBlog(t, blog.id)).resolves.toMatchObject({ ...bodies[winner], title: blog.title });
        await expect(versionOf(blog.id)).resolves.toBe(2);
      });
    });

    it('concurrent patches of different fields without preconditions all take effect (no lost field)', async () => {
      const { blog } = await create();
      const changes = FIELDS.flatMap((field) => [1, 2, 3].map((n) => ({ [field]: `${field} ${n}` })));

      const results = await Promise.all(changes.map((body) => patch(blog.id, body)));

      expect(results.map((res) => res.status)).toEqual(changes.map(() => 200));
      const stored = await storedBlog(t, blog.id);
      for (const field of FIELDS) expect(stored?.[field]).toMatch(new RegExp(`^${field} [123]$`));
      await expect(versionOf(blog.id)).resolves.toBe(1 + changes.length);
    });
  });

  describe.each(METHODS)('%s: token, id, existence, ownership, preconditions', (method) => {
    /** A valid request of `method` on blog `id` (for PATCH, a valid body). */
    const valid = (id: number | string, options: Send = {}): Test => send(method, id, options);
    let id: number;
    let etag: string;

    beforeAll(async () => {
      ({
        blog: { id },
        etag,
      } = await create());
    });

    it.each([
      ['no Authorization header', null],
      ['a malformed token', 'not.a.jwt'],
    ])('%s: 401 with the challenge, nothing changed', async (_name, token) => {
      expectUnauthorized(await expectRefused(() => valid(id, { token }), 401));
    });

    it.each([
      ['an expired token', () => t.sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) - 3600 })],
      [
        'a token signed with another key',
        () => t.sign({ sub: 'alice', exp: Math.floor(Date.now() / 1000) + 3600 }, {}, OTHER_SECRET),
      ],
      ['a token without sub', () => t.sign({ exp: Math.floor(Date.now() / 1000) + 3600 })],
    ])('%s: 401 with error="invalid_token", nothing changed', async (_name, token) => {
      const res = await expectRefused(() => valid(id, { token: token() }), 401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    });

    it.each(['0', '01', '-1', '1.5', '1e3', 'abc', '2147483648', '%201'])(
      'id %s: 400 naming the id, nothing changed',
      async (badId) => {
        const res = await expectRefused(() => valid(`${BLOGS}/${badId}`), 400);
        expect(messagesOf(res).join(' ')).toMatch(/\bid\b/);
      },
    );

    it('a well-formed id with no blog: 404 naming it, nothing changed', async () => {
      const res = await expectRefused(() => valid(MISSING_ID), 404);
      expect(messagesOf(res)).toEqual([`Blog ${MISSING_ID} not found`]);
    });

    const verb = method === 'delete' ? 'delete' : 'update';
    it(`another user's blog: 403 saying who may ${verb} it, nothing changed`, async () => {
      const res = await expectRefused(() => valid(id, { token: bob }), 403);
      expect(messagesOf(res)).toEqual([
        `Only the owner of this blog (the token subject that created it) or a blogs:admin token may ${verb} it`,
      ]);
    });

    it.each(['unquoted', '"a" "b"', '*, "a"', 'W/'])(
      'a malformed If-Match %p: 400 naming the header',
      async (value) => {
        const res = await expectRefused(() => valid(id, { headers: { 'If-Match': value } }), 400);
        expect(messagesOf(res).join(' ')).toMatch(/If-Match/);
      },
    );

    it('a stale If-Match: 412, nothing changed', async () => {
      await expectRefused(() => valid(id, { headers: { 'If-Match': `"${id}-999"` } }), 412);
    });

    it('the current tag after all the refusals: the write goes through', async () => {
      const res = await valid(id, { headers: { 'If-Match': etag } });
      expect(res.status).toBe(method === 'delete' ? 204 : 200);
    });
  });

  describe('a blog the caller may not see: every write is 404 as for a missing id, before ownership (403)', () => {
    const contract = new OpenApiContract();
    type State = 'draft' | 'scheduled' | 'published';
    const ids = {} as Record<State, number>;

    beforeAll(async () => {
      const future = new Date(Date.now() + 86_400_000).toISOString();
      const bodies: Record<State, object> = {
        draft: { status: 'draft' },
        scheduled: { status: 'scheduled', publishedAt: future },
        published: {},
      };
      for (const [state, extra] of Object.entries(bodies)) {
        const res = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(t.token('carol')))
          .send({ ...distinctBlogInput(state), ...extra });
        expect({ status: res.status, state: (res.body as BlogBody).status }).toEqual({ status: 201, state });
        ids[state as State] = (res.body as BlogBody).id;
      }
    });

    /** `method` (PUT, PATCH or DELETE, with a valid body) of blog `id` with `token` and `headers`. */
    const write = (method: 'put' | Method, id: number, token: string, headers: Record<string, string>): Test => {
      if (method !== 'put') return send(method, id, { token, headers });
      return t.http.put(`${BLOGS}/${id}`).set('Authorization', bearer(token)).set(headers).send(distinctBlogInput());
    };

    const writes = ['put', 'patch', 'delete'] as const;
    const conditions: [string, Record<string, string>][] = [
      ['unconditional', {}],
      ['If-Match: *', { 'If-Match': '*' }],
      ['a stale If-Match', { 'If-Match': '"stale"' }],
      ['If-None-Match: *', { 'If-None-Match': '*' }],
    ];
    const hiddenCases = writes.flatMap((method) =>
      (['draft', 'scheduled'] as const).flatMap((state) =>
        conditions.map(([condition, headers]) => [method, state, condition, headers] as const),
      ),
    );

    it.each(hiddenCases)(
      "%s of another user's %s blog (%s): 404 with the body of a missing id, nothing changed",
      async (method, state, _condition, headers) => {
        const id = ids[state];
        const missing = await write(method, MISSING_ID, bob, headers);
        const res = await expectRefused(() => write(method, id, bob, headers), 404);

        expect(missing.status).toBe(404);
        const message = `Blog ${id} not found`;
        expect(res.body).toEqual({ ...missing.body, message, detail: message, instance: `${BLOGS}/${id}` });
        contract.expectDocumented(method, '/api/v1/blogs/{id}', res);
      },
    );

    it.each(writes)("%s of another user's published blog: 403, nothing changed", async (method) => {
      const res = await expectRefused(() => write(method, ids.published, bob, {}), 403);
      contract.expectDocumented(method, '/api/v1/blogs/{id}', res);
    });

    it.each(writes.flatMap((method) => (['draft', 'scheduled'] as const).map((state) => [method, state] as const)))(
      "%s of another user's %s blog with a blogs:admin token: goes through",
      async (method, state) => {
        const { blog } = await create('carol', distinctBlogInput(state));
        const extra =
          state === 'draft' ? { status: 'draft' } : { status: 'scheduled', publishedAt: '2999-01-01T00:00:00Z' };
        await patch(blog.id, extra, { token: t.token('carol') }).expect(200);

        const res = await write(method, blog.id, admin, {});
        expect(res.status).toBe(method === 'delete' ? 204 : 200);
        contract.expectDocumented(method, '/api/v1/blogs/{id}', res);
      },
    );
  });

  describe('order of checks: 401 → id 400 → 415 → body 400 → If-Match syntax 400 → 404 → 403 → 412', () => {
    let foreign: { blog: BlogBody; etag: string };
    let own: { blog: BlogBody; etag: string };

    beforeAll(async () => {
      foreign = await create('carol');
      own = await create();
    });

    /** A refused request: what is sent, the status, and what the message must say. */
    interface Case {
      readonly name: string;
      readonly method: Method;
      readonly send: () => Test;
      readonly status: number;
      readonly message?: RegExp;
    }

    const stale = { 'If-Match': '"stale"' };
    const cases = (): Case[] => [
      ...METHODS.flatMap((method): Case[] => [
        {
          name: 'no token + bad id + stale If-Match → 401',
          method,
          send: () => send(method, `${BLOGS}/01`, { token: null, headers: stale, type: 'text/plain' }),
          status: 401,
        },
        {
          name: 'no token + missing blog → 401, not 404',
          method,
          send: () => send(method, MISSING_ID, { token: null }),
          status: 401,
        },
        {
          name: 'bad id + malformed If-Match → 400 about the id',
          method,
          send: () => send(method, `${BLOGS}/abc`, { headers: { 'If-Match': 'junk' } }),
          status: 400,
          message: /\bid\b/,
        },
        {
          name: 'missing blog + malformed If-Match → 400 about If-Match, not 404',
          method,
          send: () => send(method, MISSING_ID, { headers: { 'If-Match': 'junk' } }),
          status: 400,
          message: /If-Match/,
        },
        {
          name: "another user's blog + malformed If-None-Match → 400, not 403",
          method,
          send: () => send(method, foreign.blog.id, { headers: { 'If-None-Match': 'junk' } }),
          status: 400,
          message: /If-None-Match/,
        },
        {
          name: "another user's token + missing blog → 404, not 403",
          method,
          send: () => send(method, MISSING_ID, { token: bob }),
          status: 404,
        },
        {
          name: 'missing blog + stale If-Match → 404, not 412',
          method,
          send: () => send(method, MISSING_ID, { headers: stale }),
          status: 404,
        },
        {
          name: 'missing blog + If-Match: * → 404',
          method,
          send: () => send(method, MISSING_ID, { headers: { 'If-Match': '*' } }),
          status: 404,
        },
        {
          name: "another user's blog + stale If-Match → 403, not 412",
          method,
          send: () => send(method, foreign.blog.id, { headers: stale }),
          status: 403,
        },
        {
          name: "another user's blog + its current tag in If-None-Match → 403, not 412",
          method,
          send: () => send(method, foreign.blog.id, { headers: { 'If-None-Match': foreign.etag } }),
          status: 403,
        },
        {
          name: 'own blog + stale If-Match → 412',
          method,
          send: () => send(method, own.blog.id, { headers: stale }),
          status: 412,
        },
      ]),
      {
        name: 'bad id + text/plain + invalid body → 400 about the id',
        method: 'patch',
        send: () => patch(`${BLOGS}/01`, { title: 5 }, { type: 'text/plain' }),
        status: 400,
        message: /\bid\b/,
      },
      {
        name: 'missing blog + text/plain → 415, not 404',
        method: 'patch',
        send: () => patch(MISSING_ID, { title: 't' }, { type: 'text/plain' }),
        status: 415,
      },
      {
        name: 'text/plain + invalid body → 415, not 400',
        method: 'patch',
        send: () => patch(own.blog.id, { title: 5 }, { type: 'text/plain' }),
        status: 415,
      },
      {
        name: 'missing blog + {} → 400, not 404',
        method: 'patch',
        send: () => patch(MISSING_ID, {}),
        status: 400,
        message: /at least one of/,
      },
      {
        name: 'missing blog + null field → 400, not 404',
        method: 'patch',
        send: () => patch(MISSING_ID, { title: null }),
        status: 400,
        message: /title/,
      },
      {
        name: 'invalid body + malformed If-Match → 400 about the body',
        method: 'patch',
        send: () => patch(own.blog.id, { author: '' }, { headers: { 'If-Match': 'junk' } }),
        status: 400,
        message: /^author/,
      },
      {
        name: "another user's blog + unknown property → 400, not 403",
        method: 'patch',
        send: () => patch(foreign.blog.id, { ownerSub: 'alice' }),
        status: 400,
        message: /property ownerSub should not exist/,
      },
      {
        name: "another user's blog + stale If-Match + {} → 400, not 403 or 412",
        method: 'patch',
        send: () => patch(foreign.blog.id, {}, { headers: stale }),
        status: 400,
      },
    ];

    it.each(cases().map((c) => [`${c.method.toUpperCase()}: ${c.name}`, c] as const))('%s', async (_name, c) => {
      const res = await expectRefused(c.send, c.status);
      if (c.message) expect(messagesOf(res).join(' ')).toMatch(c.message);
    });

    it('the chain ends in success for the owner with a valid request: PATCH 200, then DELETE 204', async () => {
      const patched = await patch(own.blog.id, { title: 'end of the chain' }, { headers: { 'If-Match': own.etag } });
      expect(patched.status).toBe(200);
      const deleted = await remove(own.blog.id, { headers: { 'If-Match': patched.headers.etag } });
      expect(deleted.status).toBe(204);
    });
  });
});

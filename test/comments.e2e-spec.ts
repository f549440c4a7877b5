/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import { MAX_BODY_BYTES } from '../src/common/http/json-body.reader';
import { BLOGS, bearer, BODY, expectJsonError, expectUnauthorized, ISO_UTC_MS, messagesOf } from './support/blog-api';
import { releasedTogether } from './support/row-lock-race';
import { E2E_ENV } from './support/test-database';
import { useTestApp } from './support/test-app';
import { problemBody } from './support/problem';

// The comments of blogs over HTTP: create, read, list, delete, who sees them, the events they make.

const COMMENTS = '/api/v1/comments';
const commentsOf = (blogId: number | string, prefix = '/api/v1'): string => `${prefix}/blogs/${blogId}/comments`;
const COMMENT = { author: 'Bob', body: 'Nice post.' };
const DAY = 86_400_000;
const ID_MESSAGE = 'id must be a positive integer no greater than 2147483647';

interface CommentBody {
  id: number;
  blogId: number;
  author: string;
  body: string;
  createdAt: string;
}

interface CommentListBody {
  data: CommentBody[];
  total: number;
  limit: number;
  offset: number | null;
  nextCursor: string | null;
}

interface EventBody {
  id: string;
  type: string;
  comment?: Record<string, unknown>;
  blog?: { id: number };
}

/** A fresh subject, so that no test shares another's blogs. */
const sub = (name: string): string => `${name}-${randomUUID()}`;

describe('comments (e2e)', () => {
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
  const auth = (who: string, scope?: string): string => bearer(t.token(who, scope ? { scope } : {}));
  const admin = (): string => auth('comments-admin', 'blogs:admin');

  /** A blog of `owner` (live unless `extra` says otherwise): its id. */
  const blog = async (owner: string, extra: Record<string, unknown> = {}): Promise<number> => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', auth(owner))
      .send({ ...BODY, ...extra });
    expect(res.status).toBe(201);
    return (res.body as { id: number }).id;
  };

  /** Changes blog `id` of `owner` with PATCH `changes`, expecting 200. */
  const patchBlog = async (id: number, owner: string, changes: Record<string, unknown>): Promise<void> => {
    const res = await t.http.patch(`${BLOGS}/${id}`).set('Authorization', auth(owner)).send(changes);
    expect(res.status).toBe(200);
  };

  /** POST of `body` as `who` on blog `blogId`'s comments. */
  const post = (blogId: number | string, who: string, body: object = COMMENT, prefix = '/api/v1') =>
    t.http.post(commentsOf(blogId, prefix)).set('Authorization', auth(who)).send(body);

  /** A comment of `who` on blog `blogId`, expecting 201. */
  const comment = async (blogId: number, who: string, body: object = COMMENT): Promise<CommentBody> => {
    const res = await post(blogId, who, body);
    expect(res.status).toBe(201);
    return res.body as CommentBody;
  };

  /** The stored comments of blog `blogId`, oldest first. */
  const stored = async (blogId: number): Promise<{ id: number; owner_sub: string }[]> =>
    t.dataSource.query(`SELECT "id", "owner_sub" FROM "comments" WHERE "blog_id" = $1 ORDER BY "id"`, [blogId]);

  /** The same 404 a blog id that does not exist answers. */
  const expectBlogNotFound = (res: Response, blogId: number): void => {
    expectJsonError(res, 404);
    expect(res.body).toEqual(problemBody(404, `Blog ${blogId} not found`));
  };

  const expectCommentNotFound = (res: Response, id: number): void => {
    expectJsonError(res, 404);
    expect(res.body).toEqual(problemBody(404, `Comment ${id} not found`));
  };

  describe('create and read', () => {
    it('answers 201 with the comment, its canonical Location and ETag; the owner is stored, never shown', async () => {
      const owner = sub('alice');
      const commenter = sub('bob');
      const blogId = await blog(owner);

      const res = await post(blogId, commenter);

      expect(res.status).toBe(201);
      const body = res.body as CommentBody;
      expect(body).toEqual({
        id: expect.any(Number),
        blogId,
        author: 'Bob',
        body: 'Nice post.',
        createdAt: expect.any(String),
      });
      expect(body.createdAt).toMatch(ISO_UTC_MS);
      expect(res.headers.location).toBe(`${COMMENTS}/${body.id}`);
      expect(res.headers.etag).toBe(`"${body.id}-1"`);
      expect(await stored(blogId)).toEqual([{ id: body.id, owner_sub: commenter }]);

      const read = await t.http.get(res.headers.location);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(body);
      expect(read.headers.etag).toBe(`"${body.id}-1"`);
    });

    it.each(['/api', '/v1'])(
      'takes and serves comments under the alias %s; Location stays canonical',
      async (prefix) => {
        const blogId = await blog(sub('alice'));

        const created = await post(blogId, sub('bob'), COMMENT, prefix);
        expect(created.status).toBe(201);
        const { id } = created.body as CommentBody;
        expect(created.headers.location).toBe(`${COMMENTS}/${id}`);
        expect((await t.http.get(`${prefix}/comments/${id}`)).body).toEqual(created.body);
        const list = await t.http.get(commentsOf(blogId, prefix));
        expect((list.body as CommentListBody).data).toEqual([created.body]);
        const deleted = await t.http.delete(`${prefix}/comments/${id}`).set('Authorization', admin());
        expect(deleted.status).toBe(204);
      },
    );

    it('ids ascend in creation order', async () => {
      const blogId = await blog(sub('alice'));
      const first = await comment(blogId, sub('bob'));
      const second = await comment(blogId, sub('carol'));
      expect(second.id).toBeGreaterThan(first.id);
    });

    it('answers 304 to If-None-Match with the ETag', async () => {
      const created = await comment(await blog(sub('alice')), sub('bob'));
      const res = await t.http.get(`${COMMENTS}/${created.id}`).set('If-None-Match', `"${created.id}-1"`);
      expect(res.status).toBe(304);
    });

    it('keeps author and body exactly as sent; lengths count code points', async () => {
      const blogId = await blog(sub('alice'));
      const body = { author: '😀'.repeat(100), body: ` <b>x</b> & "y"\n${'é'.repeat(9_984)}` };
      const created = await comment(blogId, sub('bob'), body);
      expect(created).toMatchObject(body);
      expect((await comment(blogId, sub('bob'), { author: 'a', body: 'b'.repeat(10_000) })).body).toHaveLength(10_000);
    });

    it('a comment id that does not exist is 404', async () => {
      expectCommentNotFound(await t.http.get(`${COMMENTS}/2147483647`), 2147483647);
    });

    it.each(['put', 'patch'] as const)(
      '%s /comments/:id is answered as /blogs answers a method it lacks',
      async (method) => {
        const created = await comment(await blog(sub('alice')), sub('bob'));
        const blogs = await t.http.post(`${BLOGS}/1`).set('Authorization', admin()).send({});
        const res = await t.http[method](`${COMMENTS}/${created.id}`).set('Authorization', admin()).send(COMMENT);

        expect(res.status).toBe(blogs.status);
        const message = (blogs.body as { message: string }).message.replace(
          `POST ${BLOGS}/1`,
          `${method.toUpperCase()} ${COMMENTS}/${created.id}`,
        );
        expect(res.body).toEqual({
          ...(blogs.body as object),
          detail: message,
          instance: `${COMMENTS}/${created.id}`,
          message,
        });
      },
    );
  });

  describe('create: the body', () => {
    let blogId: number;
    beforeAll(async () => {
      blogId = await blog(sub('alice'));
    });

    it.each([
      [{ body: 'x' }, 'author'],
      [{ author: 'x' }, 'body'],
      [{ author: 1, body: 'x' }, 'author'],
      [{ author: 'x', body: ['x'] }, 'body'],
      [{ author: 'x', body: null }, 'body'],
      [{ author: '', body: 'x' }, 'author'],
      [{ author: 'x', body: '' }, 'body'],
      [{ author: ' \t\n', body: 'x' }, 'author'],
      [{ author: 'x', body: '   ' }, 'body'],
      [{ author: 'x', body: 'a\u0000b' }, 'body'],
      [{ author: 'a\u0000', body: 'x' }, 'author'],
      [{ author: 'a'.repeat(101), body: 'x' }, 'author'],
      [{ author: '😀'.repeat(101), body: 'x' }, 'author'],
      [{ author: 'x', body: 'b'.repeat(10_001) }, 'body'],
      [{ ...COMMENT, blogId: 3 }, 'blogId'],
      [{ ...COMMENT, id: 3 }, 'id'],
      [{ ...COMMENT, ownerSub: 'x' }, 'ownerSub'],
    ])('%j is 400 naming %s, nothing stored', async (body, name) => {
      const res = await post(blogId, sub('bob'), body);
      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toContain(name);
      expect(await stored(blogId)).toEqual([]);
    });

    it.each([
      ['malformed JSON', '{"author": "x",', 'application/json'],
      ['an array', '[]', 'application/json'],
      ['a string', '"x"', 'application/json'],
    ])('%s is 400', async (_what, raw, type) => {
      const res = await t.http
        .post(commentsOf(blogId))
        .set('Authorization', auth('bob'))
        .set('Content-Type', type)
        .send(raw);
      expectJsonError(res, 400);
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/merge-patch+json'])(
      'Content-Type %s is 415',
      async (type) => {
        const res = await t.http
          .post(commentsOf(blogId))
          .set('Authorization', auth('bob'))
          .set('Content-Type', type)
          .send(JSON.stringify(COMMENT));
        expectJsonError(res, 415);
      },
    );

    it(`a body over ${MAX_BODY_BYTES} bytes is 413`, async () => {
      const res = await post(blogId, 'bob', { author: 'x', body: 'b'.repeat(MAX_BODY_BYTES) });
      expectJsonError(res, 413);
    });

    it('no token is 401, a refused one too', async () => {
      expectUnauthorized(await t.http.post(commentsOf(blogId)).send(COMMENT));
      expectUnauthorized(await t.http.post(commentsOf(blogId)).set('Authorization', 'Bearer nope').send(COMMENT));
    });
  });

  describe('ids', () => {
    it.each(['0', '01', '-1', '1.5', 'abc', '2147483648'])('id %s is 400 on every route', async (id) => {
      for (const res of [
        await t.http.get(commentsOf(id)),
        await t.http.get(`${COMMENTS}/${id}`),
        await t.http.post(commentsOf(id)).set('Authorization', auth('bob')).send(COMMENT),
        await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth('bob')),
      ]) {
        expectJsonError(res, 400);
        expect(messagesOf(res)).toEqual([ID_MESSAGE]);
      }
    });
  });

  describe('order of checks', () => {
    it('create: token, blog id, content type, body, the blog visible, live', async () => {
      const owner = sub('alice');
      const draft = await blog(owner, { status: 'draft' });
      const bad = { author: '', body: 'x' };
      const missing = 2147483600;
      const send = (id: number | string, who: string | undefined, body: object | string, type = 'application/json') => {
        const call = t.http.post(commentsOf(id)).set('Content-Type', type);
        return (who === undefined ? call : call.set('Authorization', auth(who))).send(
          typeof body === 'string' ? body : JSON.stringify(body),
        );
      };

      expectUnauthorized(await send('x', undefined, 'not json', 'text/plain'));
      expect(messagesOf(await send('x', 'bob', 'not json', 'text/plain'))).toEqual([ID_MESSAGE]);
      expectJsonError(await send(missing, 'bob', bad, 'text/plain'), 415);
      expectJsonError(await send(missing, 'bob', bad), 400);
      expectBlogNotFound(await send(draft, 'bob', COMMENT), draft);
      expectBlogNotFound(await send(missing, 'bob', COMMENT), missing);
      expectJsonError(await send(draft, owner, COMMENT), 409);
    });

    it('delete: token, id, the comment visible, allowed', async () => {
      const owner = sub('alice');
      const blogId = await blog(owner);
      const { id } = await comment(blogId, sub('bob'));
      await patchBlog(blogId, owner, { status: 'draft' });

      expectUnauthorized(await t.http.delete(`${COMMENTS}/x`));
      expect(messagesOf(await t.http.delete(`${COMMENTS}/x`).set('Authorization', auth('eve')))).toEqual([ID_MESSAGE]);
      expectCommentNotFound(await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth('eve')), id);
      await patchBlog(blogId, owner, { status: 'published' });
      const refused = await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth('eve'));
      expectJsonError(refused, 403);
      expect(messagesOf(refused)).toEqual([
        'Only the owner of this comment (the token subject that created it), the owner of its blog or a blogs:admin ' +
          'token may delete it',
      ]);
      expect(await stored(blogId)).toHaveLength(1);
    });

    it('list: id and query, then the blog visible', async () => {
      const draft = await blog(sub('alice'), { status: 'draft' });
      expect(messagesOf(await t.http.get(`${commentsOf('x')}?limit=0`))).toEqual([ID_MESSAGE]);
      expectJsonError(await t.http.get(`${commentsOf(draft)}?limit=0`), 400);
      expectJsonError(await t.http.get(`${commentsOf(draft)}?cursor=abc.def`), 400);
      expectBlogNotFound(await t.http.get(commentsOf(draft)), draft);
    });
  });

  describe('the list', () => {
    let blogId: number;
    let all: CommentBody[];
    beforeAll(async () => {
      blogId = await blog(sub('alice'));
      all = [];
      for (let i = 0; i < 12; i++) all.push(await comment(blogId, sub('bob'), { author: `A${i}`, body: `B${i}` }));
    });

    /** The 200 list of `query`. */
    const list = async (
      query = '',
      id: number = blogId,
    ): Promise<{ body: CommentListBody; headers: Record<string, string> }> => {
      const res = await t.http.get(`${commentsOf(id)}${query}`);
      expect(res.status).toBe(200);
      return { body: res.body as CommentListBody, headers: res.headers };
    };

    it('is oldest first, 10 by default, with the exact total and a Link to the next page', async () => {
      const res = await list();
      expect(res.body).toEqual({
        data: all.slice(0, 10),
        total: 12,
        totalRelation: 'eq',
        limit: 10,
        offset: 0,
        nextCursor: expect.any(String),
      });
      expect(res.headers.link).toBe(`<${commentsOf(blogId)}?cursor=${res.body.nextCursor}>; rel="next"`);
    });

    it('orders by createdAt, then id', async () => {
      const other = await blog(sub('alice'));
      const [a, b] = [await comment(other, 'bob'), await comment(other, 'bob')];
      // The later id made at the earlier instant comes first.
      await t.dataSource.query(
        `UPDATE "comments" SET "created_at" = "created_at" - interval '1 hour' WHERE "id" = $1`,
        [b.id],
      );
      expect((await list('', other)).body.data.map((c) => c.id)).toEqual([b.id, a.id]);
    });

    it('pages by limit and offset; an offset past the end is an empty page with the total', async () => {
      expect((await list('?limit=5&offset=10')).body).toEqual({
        data: all.slice(10),
        total: 12,
        totalRelation: 'eq',
        limit: 5,
        offset: 10,
        nextCursor: null,
      });
      const past = await list('?offset=100');
      expect(past.body).toEqual({ data: [], total: 12, totalRelation: 'eq', limit: 10, offset: 100, nextCursor: null });
      expect(past.headers.link).toBeUndefined();
    });

    it('walks every comment once by cursor, from any prefix', async () => {
      const seen: CommentBody[] = [];
      let path = `${commentsOf(blogId, '/v1')}?limit=5`;
      for (;;) {
        const res = await t.http.get(path);
        expect(res.status).toBe(200);
        const body = res.body as CommentListBody;
        seen.push(...body.data);
        if (body.nextCursor === null) break;
        expect(body.offset).toBe(seen.length === 5 ? 0 : null);
        const link = /^<([^>]+)>; rel="next"$/.exec(res.headers.link)![1];
        expect(link).toBe(`${commentsOf(blogId)}?limit=5&cursor=${body.nextCursor}`);
        path = link;
      }
      expect(seen).toEqual(all);
    });

    it('a blog without comments has total 0', async () => {
      expect((await list('', await blog(sub('alice')))).body).toEqual({
        data: [],
        total: 0,
        totalRelation: 'eq',
        limit: 10,
        offset: 0,
        nextCursor: null,
      });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=01', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=2147483648', 'offset'],
      ['limit=1&limit=2', 'limit'],
      ['sort=id', 'sort'],
      ['status=draft', 'status'],
      ['cursor=abc', 'cursor'],
      ['cursor=', 'cursor'],
    ])('?%s is 400 naming %s', async (query, name) => {
      const res = await t.http.get(`${commentsOf(blogId)}?${query}`);
      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toContain(name);
    });

    it('refuses a cursor with offset, of another blog, of another list, or changed', async () => {
      // One character in the middle, where each carries 6 bits of the token (the last may carry padding only).
      const changed = (cursor: string): string => {
        const at = Math.floor(cursor.length / 2);
        return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
      };
      const { nextCursor } = (await list('?limit=1')).body;
      const other = await blog(sub('alice'));
      await comment(other, 'bob');
      await comment(other, 'bob');
      const otherCursor = (await list('?limit=1', other)).body.nextCursor!;
      const blogsCursor = (await t.http.get(`${BLOGS}?limit=1`)).body.nextCursor as string;
      expect(blogsCursor).toEqual(expect.any(String));

      for (const [query, message] of [
        [`cursor=${nextCursor}&offset=0`, 'cursor and offset cannot be combined'],
        [`cursor=${otherCursor}`, "cursor was made for another blog's comments"],
        [`cursor=${blogsCursor}`, 'cursor was made for another list'],
        [`cursor=${changed(nextCursor!)}`, 'cursor is not a nextCursor of this service'],
      ]) {
        const res = await t.http.get(`${commentsOf(blogId)}?${query}`);
        expectJsonError(res, 400);
        expect(messagesOf(res).join(' ')).toContain(message);
      }
      // and a comments cursor is no cursor of the blog list
      const res = await t.http.get(`${BLOGS}?cursor=${nextCursor}`);
      expectJsonError(res, 400);
    });

    it('a missing blog is 404', async () => {
      expectBlogNotFound(await t.http.get(commentsOf(2147483601)), 2147483601);
    });
  });

  describe('who sees what', () => {
    const owner = sub('alice');
    const commenter = sub('bob');
    const blogs: Record<'live' | 'draft' | 'scheduled', number> = { live: 0, draft: 0, scheduled: 0 };
    const comments: Record<'live' | 'draft' | 'scheduled', CommentBody | undefined> = {
      live: undefined,
      draft: undefined,
      scheduled: undefined,
    };

    beforeAll(async () => {
      // Commented while live; then back to draft, or scheduled again: the comments stay.
      for (const state of ['live', 'draft', 'scheduled'] as const) {
        blogs[state] = await blog(owner);
        comments[state] = await comment(blogs[state], commenter);
      }
      await patchBlog(blogs.draft, owner, { status: 'draft' });
      await patchBlog(blogs.scheduled, owner, {
        status: 'scheduled',
        publishedAt: new Date(Date.now() + DAY).toISOString(),
      });
    });

    const callers = {
      anonymous: (): string | undefined => undefined,
      'a refused token': (): string | undefined => 'Bearer not-a-token',
      owner: (): string | undefined => auth(owner),
      commenter: (): string | undefined => auth(commenter),
      admin: (): string | undefined => admin(),
    };

    it.each([
      ['live', 'anonymous', true],
      ['live', 'a refused token', true],
      ['live', 'commenter', true],
      ['draft', 'anonymous', false],
      ['draft', 'a refused token', false],
      ['draft', 'commenter', false],
      ['draft', 'owner', true],
      ['draft', 'admin', true],
      ['scheduled', 'anonymous', false],
      ['scheduled', 'commenter', false],
      ['scheduled', 'owner', true],
      ['scheduled', 'admin', true],
    ] as const)('a %s blog, %s: sees its comments %s', async (state, caller, sees) => {
      const authorization = callers[caller]();
      const get = (path: string) => {
        const call = t.http.get(path);
        return authorization === undefined ? call : call.set('Authorization', authorization);
      };
      const one = await get(`${COMMENTS}/${comments[state]!.id}`);
      const list = await get(commentsOf(blogs[state]));
      if (sees) {
        expect(one.status).toBe(200);
        expect(one.body).toEqual(comments[state]);
        expect(list.status).toBe(200);
        expect((list.body as CommentListBody).data).toEqual([comments[state]]);
      } else {
        expectCommentNotFound(one, comments[state]!.id);
        expectBlogNotFound(list, blogs[state]);
      }
    });

    it.each([
      ['draft', 'owner', 409],
      ['draft', 'admin', 409],
      ['draft', 'commenter', 404],
      ['scheduled', 'owner', 409],
      ['scheduled', 'admin', 409],
      ['scheduled', 'commenter', 404],
    ] as const)('a comment on a %s blog by %s is %d, nothing stored', async (state, caller, status) => {
      const res = await t.http.post(commentsOf(blogs[state])).set('Authorization', callers[caller]()!).send(COMMENT);
      if (status === 404) expectBlogNotFound(res, blogs[state]);
      else {
        expectJsonError(res, 409);
        expect(messagesOf(res)).toEqual([
          `Blog ${blogs[state]} is not published: only a published blog takes comments`,
        ]);
      }
      expect(await stored(blogs[state])).toHaveLength(1);
    });

    it.each(['draft', 'scheduled'] as const)(
      "a %s blog's comment cannot be deleted by its commenter (404); its owner may",
      async (state) => {
        const { id } = await (async () => {
          const fresh = await blog(owner);
          const made = await comment(fresh, commenter);
          await patchBlog(
            fresh,
            owner,
            state === 'draft'
              ? { status: 'draft' }
              : { status: 'scheduled', publishedAt: new Date(Date.now() + DAY).toISOString() },
          );
          return made;
        })();
        expectCommentNotFound(await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth(commenter)), id);
        expect((await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth(owner))).status).toBe(204);
      },
    );
  });

  describe('delete', () => {
    it.each([
      ['its commenter', (_owner: string, commenter: string) => auth(commenter)],
      ["its blog's owner", (owner: string) => auth(owner)],
      ['blogs:admin', () => admin()],
    ])('%s may delete a comment: 204, then 404, and the list and total lose it', async (_who, authorization) => {
      const owner = sub('alice');
      const commenter = sub('bob');
      const blogId = await blog(owner);
      const kept = await comment(blogId, sub('carol'));
      const { id } = await comment(blogId, commenter);

      const res = await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', authorization(owner, commenter));

      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expectCommentNotFound(await t.http.get(`${COMMENTS}/${id}`), id);
      const list = await t.http.get(commentsOf(blogId));
      expect(list.body).toMatchObject({ data: [kept], total: 1 });
      expectCommentNotFound(await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', admin()), id);
    });

    it('another subject is 403 and nothing is deleted', async () => {
      const blogId = await blog(sub('alice'));
      const { id } = await comment(blogId, sub('bob'));
      expectJsonError(await t.http.delete(`${COMMENTS}/${id}`).set('Authorization', auth(sub('eve'))), 403);
      expect(await stored(blogId)).toHaveLength(1);
    });
  });

  describe('Idempotency-Key', () => {
    it('a retry with the same key answers the first comment again and stores one', async () => {
      const blogId = await blog(sub('alice'));
      const commenter = sub('bob');
      const send = () =>
        t.http
          .post(commentsOf(blogId))
          .set('Authorization', auth(commenter))
          .set('Idempotency-Key', 'k-1')
          .send(COMMENT);

      const first = await send();
      const again = await send();

      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(first.headers.location);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(await stored(blogId)).toHaveLength(1);
      const other = await t.http
        .post(commentsOf(blogId))
        .set('Authorization', auth(commenter))
        .set('Idempotency-Key', 'k-1')
        .send({ ...COMMENT, body: 'Another' });
      expectJsonError(other, 422);
    });
  });

  describe('events', () => {
    const reader = (): string => auth('feed-reader', 'events:read');

    /** Every event of the feed after `after`. */
    const walk = async (after: string | null): Promise<{ events: EventBody[]; last: string | null }> => {
      const events: EventBody[] = [];
      let cursor = after;
      for (;;) {
        const res = await t.http
          .get(`/api/v1/changes?limit=1000${cursor === null ? '' : `&after=${cursor}`}`)
          .set('Authorization', reader());
        expect(res.status).toBe(200);
        const data = res.body.data as EventBody[];
        events.push(...data);
        if (data.length === 0) return { events, last: cursor };
        cursor = res.body.nextAfter as string;
      }
    };

    it('comment.created carries the comment, comment.deleted its id and blogId, in commit order', async () => {
      const owner = sub('alice');
      const blogId = await blog(owner);
      const { last } = await walk(null);

      const created = await comment(blogId, sub('bob'));
      await t.http.delete(`${COMMENTS}/${created.id}`).set('Authorization', auth(owner)).expect(204);

      const { events } = await walk(last);
      expect(events.map(({ type, comment }) => ({ type, comment }))).toEqual([
        { type: 'comment.created', comment: created },
        { type: 'comment.deleted', comment: { id: created.id, blogId } },
      ]);
      const [{ keys }] = await t.dataSource.query<[{ keys: string[] }]>(
        `SELECT array(SELECT k FROM json_object_keys("data") AS k ORDER BY k) AS "keys" FROM "events"
        WHERE "type" = 'comment.created' AND "data"->>'id' = $1`,
        [String(created.id)],
      );
      expect(keys).toEqual(['author', 'blog_id', 'body', 'created_at', 'id']);
    });

    it("a blog's deletion takes its comments, their counter and makes no comment event", async () => {
      const owner = sub('alice');
      const blogId = await blog(owner);
      const [a, b] = [await comment(blogId, sub('bob')), await comment(blogId, sub('carol'))];
      const { last } = await walk(null);

      await t.http.delete(`${BLOGS}/${blogId}`).set('Authorization', auth(owner)).expect(204);

      const { events } = await walk(last);
      expect(events.map((event) => [event.type, event.blog?.id])).toEqual([['blog.deleted', blogId]]);
      expect(await stored(blogId)).toEqual([]);
      const counts = await t.dataSource.query(`SELECT "n" FROM "comment_counts" WHERE "blog_id" = $1`, [blogId]);
      expect(counts).toEqual([]);
      expectCommentNotFound(await t.http.get(`${COMMENTS}/${a.id}`), a.id);
      expectCommentNotFound(await t.http.delete(`${COMMENTS}/${b.id}`).set('Authorization', admin()), b.id);
      expectBlogNotFound(await t.http.get(commentsOf(blogId)), blogId);
    });
  });

  // The embedded database has one connection: a transaction of the spec's own would hold it.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    'a comment on a blog deleted while the request runs is 404 and stores nothing',
    async () => {
      const owner = sub('alice');
      const blogId = await blog(owner);
      const [pending] = await releasedTogether(
        t.dataSource,
        { sql: 'DELETE FROM "blogs" WHERE "id" = $1', parameters: [blogId] },
        '%INSERT INTO "comments"%',
        [() => post(blogId, sub('bob')).then((res) => res)],
      );

      expectBlogNotFound(pending, blogId);
      expect(await stored(blogId)).toEqual([]);
    },
  );
});

describe('comments with READS_REQUIRE_AUTH=true (e2e)', () => {
  const t = useTestApp({ READS_REQUIRE_AUTH: 'true', RATE_LIMIT_ENABLED: 'false' });

  it('reads need a token: 401 without, 200 with', async () => {
    const created = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('alice')))
      .send(BODY)
      .expect(201);
    const blogId = (created.body as { id: number }).id;
    const made = await t.http
      .post(commentsOf(blogId))
      .set('Authorization', bearer(t.token('bob')))
      .send(COMMENT)
      .expect(201);
    const id = (made.body as CommentBody).id;

    expectUnauthorized(await t.http.get(commentsOf(blogId)));
    expectUnauthorized(await t.http.get(`${COMMENTS}/${id}`));
    const reader = bearer(t.token('reader'));
    expect((await t.http.get(commentsOf(blogId)).set('Authorization', reader)).status).toBe(200);
    expect((await t.http.get(`${COMMENTS}/${id}`).set('Authorization', reader)).status).toBe(200);
  });
});

describe('comments under the write rate limit (e2e)', () => {
  const t = useTestApp({ RATE_LIMIT_WRITES: '2', RATE_LIMIT_WINDOW_SECONDS: '60' });

  it("a subject's 3rd write is 429 with Retry-After and stores nothing", async () => {
    const writer = bearer(t.token(sub('writer')));
    const created = await t.http.post(BLOGS).set('Authorization', writer).send(BODY).expect(201);
    const blogId = (created.body as { id: number }).id;
    await t.http.post(commentsOf(blogId)).set('Authorization', writer).send(COMMENT).expect(201);

    const limited = await t.http.post(commentsOf(blogId)).set('Authorization', writer).send(COMMENT);

    expectJsonError(limited, 429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const rows = await t.dataSource.query(`SELECT count(*)::int AS "n" FROM "comments" WHERE "blog_id" = $1`, [blogId]);
    expect(rows).toEqual([{ n: 1 }]);
  });
});

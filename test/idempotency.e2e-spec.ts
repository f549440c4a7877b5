/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Response } from 'supertest';
import { BLOGS, bearer, BODY, countBlogs, expectJsonError, messagesOf } from './support/blog-api';
import { useTestApp } from './support/test-app';

// Idempotency-Key on POST /blogs and PATCH /blogs/:id over HTTP: the first request is carried out, a retry gets its
// answer again, and the key's own refusals come in the contract's order.

const OWNER = 'idempotency-owner';

describe('Idempotency-Key (e2e)', () => {
  const t = useTestApp();
  const auth = (sub = OWNER): string => bearer(t.token(sub));
  let keys = 0;
  /** A key no other test uses. */
  const freshKey = (): string => `key-${(keys += 1)}-${Date.now()}`;

  const post = (key: string | undefined, body: unknown = BODY, sub = OWNER): Promise<Response> => {
    const call = t.http.post(BLOGS).set('Authorization', auth(sub));
    return (key === undefined ? call : call.set('Idempotency-Key', key)).send(body as object);
  };

  const patch = (id: number, key: string, body: unknown): Promise<Response> =>
    t.http
      .patch(`${BLOGS}/${id}`)
      .set('Authorization', auth())
      .set('Idempotency-Key', key)
      .send(body as object);

  /** The answer's parts a replay must repeat. */
  const answerOf = (res: Response): unknown[] => [res.status, res.body, res.headers.location, res.headers.etag];

  describe('the key', () => {
    it.each([
      ['empty', ''],
      ['a space inside', 'a b'],
      ['256 characters', 'k'.repeat(256)],
      ['a quoted string with a space', '"a b"'],
      ['an unterminated quote', '"abc'],
      ['a character past ~', 'caf\u00e9'],
      ['a tab', 'a\tb'],
    ])('is 400 when it has %s, and nothing is stored', async (_name, key) => {
      const before = await countBlogs(t);
      const res = await post(key);
      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toContain('Idempotency-Key');
      expect(await countBlogs(t)).toBe(before);
    });

    it('is checked after the token: no token and a bad key is 401', async () => {
      const res = await t.http.post(BLOGS).set('Idempotency-Key', '').send(BODY);
      expect(res.status).toBe(401);
    });

    it('is checked before the body: a bad key and a bad body is 400 about the key', async () => {
      const res = await post('a b', { title: '' });
      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual([expect.stringContaining('Idempotency-Key')]);
    });

    it.each([
      ['255 characters', 'k'.repeat(254)],
      ['every character from ! to ~', Array.from({ length: 94 }, (_, i) => String.fromCharCode(0x21 + i)).join('')],
    ])('takes %s', async (_name, stem) => {
      const key = `${stem}${keys % 10}`.slice(-255);
      keys += 1;
      const first = await post(key, { ...BODY, title: `Takes ${keys}` });
      expect(first.status).toBe(201);
      const again = await post(key, { ...BODY, title: `Takes ${keys}` });
      expect(again.headers['idempotent-replayed']).toBe('true');
    });

    it('quoted ("…", with \\" and \\\\ escapes) names the same key as bare', async () => {
      const bare = `${freshKey()}-q"b\\s`;
      const first = await post(bare);
      const quoted = await post(`"${bare.replace(/(["\\])/g, '\\$1')}"`);
      expect(quoted.headers['idempotent-replayed']).toBe('true');
      expect(answerOf(quoted)).toEqual(answerOf(first));
    });
  });

  describe('a retry', () => {
    it('of a create gets the first answer again (201, body, Location, ETag) and stores nothing more', async () => {
      const key = freshKey();
      const first = await post(key);
      expect(first.status).toBe(201);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const before = await countBlogs(t);
      const retries = await Promise.all([post(key), post(key)]);
      for (const retry of retries) {
        expect(answerOf(retry)).toEqual(answerOf(first));
        expect(retry.headers['idempotent-replayed']).toBe('true');
      }
      expect(await countBlogs(t)).toBe(before);
    });

    it('of a patch gets the first answer although the blog changed since', async () => {
      const created = await post(undefined);
      const key = freshKey();
      const first = await patch(created.body.id as number, key, { title: 'Patched once' });
      expect(first.status).toBe(200);
      const other = await patch(created.body.id as number, freshKey(), { title: 'Patched again' });
      expect(other.status).toBe(200);
      const retry = await patch(created.body.id as number, key, { title: 'Patched once' });
      expect(answerOf(retry)).toEqual(answerOf(first));
      expect(retry.headers['idempotent-replayed']).toBe('true');
    });

    it.each([
      ['a 400 for the body', { title: '' }, 'application/json', 400],
      ['a 415 for the media type', 'title=x', 'text/plain', 415],
    ])('of %s gets it again', async (_name, body, type, status) => {
      const key = freshKey();
      const send = (): Promise<Response> =>
        t.http
          .post(BLOGS)
          .set('Authorization', auth())
          .set('Idempotency-Key', key)
          .set('Content-Type', type)
          .send(typeof body === 'string' ? body : JSON.stringify(body));
      const first = await send();
      expect(first.status).toBe(status);
      const retry = await send();
      expect(answerOf(retry)).toEqual(answerOf(first));
      expect(retry.headers['idempotent-replayed']).toBe('true');
    });

    // Express routes paths in any letter case, and /api/… and /v1/… are aliases: all of them name one request.
    it.each([['/API/V1/BLOGS'], ['/api/blogs'], ['/v1/blogs'], ['/Api/V1/Blogs'], ['/api/v1/blogs']])(
      'of a create through %s gets the answer of /api/v1/blogs',
      async (path) => {
        const key = freshKey();
        const first = await post(key);
        expect(first.status).toBe(201);
        const retry = await t.http.post(path).set('Authorization', auth()).set('Idempotency-Key', key).send(BODY);
        expect(answerOf(retry)).toEqual(answerOf(first));
        expect(retry.headers['idempotent-replayed']).toBe('true');
      },
    );

    it.each([['/API/V1/BLOGS/{id}/COMMENTS'], ['/api/blogs/{id}/comments'], ['/V1/Blogs/{id}/Comments']])(
      'of a comment through %s gets the answer of /api/v1/blogs/{id}/comments',
      async (template) => {
        const blog = await post(undefined);
        const id = blog.body.id as number;
        const key = freshKey();
        const comment = (path: string): Promise<Response> =>
          t.http
            .post(path)
            .set('Authorization', auth())
            .set('Idempotency-Key', key)
            .send({ author: 'Bob', body: 'A comment' });
        const first = await comment(`${BLOGS}/${id}/comments`);
        expect(first.status).toBe(201);
        const retry = await comment(template.replace('{id}', String(id)));
        expect(answerOf(retry)).toEqual(answerOf(first));
        expect(retry.headers['idempotent-replayed']).toBe('true');
      },
    );

    it('of a 409 for a taken slug gets the 409 again after the slug is freed', async () => {
      const holder = await post(undefined, { ...BODY, slug: 'idempotency-taken' });
      const key = freshKey();
      const first = await post(key, { ...BODY, slug: 'idempotency-taken' });
      expect(first.status).toBe(409);
      const deleted = await t.http.delete(`${BLOGS}/${holder.body.id}`).set('Authorization', auth());
      expect(deleted.status).toBe(204);
      const retry = await post(key, { ...BODY, slug: 'idempotency-taken' });
      expect(answerOf(retry)).toEqual(answerOf(first));
    });
  });

  describe('refusals of the key', () => {
    it.each([
      ['another body', (key: string) => post(key, { ...BODY, title: 'Another title' })],
      ['another method and path', (key: string) => patch(1, key, { title: 'X' })],
    ])('the key with %s is 422, and nothing is stored', async (_name, reuse) => {
      const key = freshKey();
      expect((await post(key)).status).toBe(201);
      const before = await countBlogs(t);
      const res = await reuse(key);
      expectJsonError(res, 422);
      expect(res.body.message).toBe('This Idempotency-Key was used with another request (method, path or body)');
      expect(await countBlogs(t)).toBe(before);
    });

    it("keys belong to the token's sub: another sub's request with the same key is carried out", async () => {
      const key = freshKey();
      const mine = await post(key);
      const theirs = await post(key, BODY, 'another-sub');
      expect(theirs.status).toBe(201);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.body.id).not.toBe(mine.body.id);
    });

    it('a key whose first request is still in progress is 409; once its lease ran out, the key is free', async () => {
      const key = freshKey();
      await t.dataSource.query(
        `INSERT INTO idempotency_keys (owner_sub, key, fingerprint, locked_until, expires_at)
         VALUES ($1, $2, '\\x00', now() + interval '1 minute', now() + interval '1 day')`,
        [OWNER, key],
      );
      const busy = await post(key);
      expectJsonError(busy, 409);
      expect(busy.body.message).toBe('A request with this Idempotency-Key is still in progress; retry later');
      await t.dataSource.query(
        `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1`,
        [key],
      );
      expect((await post(key)).status).toBe(201);
    });

    it('a key older than 24 hours is free again', async () => {
      const key = freshKey();
      const first = await post(key);
      await t.dataSource.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE key = $1`, [
        key,
      ]);
      const again = await post(key);
      expect(again.status).toBe(201);
      expect(again.headers['idempotent-replayed']).toBeUndefined();
      expect(again.body.id).not.toBe(first.body.id);
    });
  });
});

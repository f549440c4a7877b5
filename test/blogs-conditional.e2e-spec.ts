/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { Client } from 'pg';
import type { Response } from 'supertest';
import {
  bearer,
  BlogBody,
  BlogInput,
  BLOGS,
  distinctBlogInput,
  createBlog,
  expectJsonError,
  expectUnauthorized,
  storedBlog,
} from './support/blog-api';
import { useTestApp } from './support/test-app';
import { E2E_ENV } from './support/test-database';

// Conditional requests (RFC 9110 §13) against lost updates: every blog response carries a strong
// ETag derived from the blog's version; PUT honours If-Match / If-None-Match atomically (412 and
// nothing changed when they do not hold), GET answers 304 to a matching If-None-Match. Checked in
// the database as well as in the responses.

/** A strong entity tag: `"…"`, no `W/`. */
const STRONG_TAG = /^"[\x21\x23-\x7e]+"$/;

describe('conditional requests: ETag, If-Match, If-None-Match (e2e)', () => {
  const t = useTestApp();
  let alice: string;

  beforeAll(async () => {
    alice = bearer(t.token('alice'));
  });

  async function create(body: BlogInput = distinctBlogInput()): Promise<{ blog: BlogBody; etag: string }> {
    const res = await createBlog(t, 'alice', body);
    return { blog: res.body, etag: res.headers.etag };
  }

  function put(id: number, body: BlogInput, headers: Record<string, string> = {}, auth: string = alice) {
    const req = t.http.put(`${BLOGS}/${id}`).set('Authorization', auth);
    for (const [name, value] of Object.entries(headers)) req.set(name, value);
    return req.send(body);
  }

  async function versionOf(id: number): Promise<number> {
    const rows: { version: number }[] = await t.dataSource.query('SELECT version FROM blogs WHERE id = $1', [id]);
    return Number(rows[0].version);
  }

  describe('ETag on every blog response', () => {
    it('create, read and update each carry one strong ETag; read repeats the create tag; update changes it; the new tag is what reads give', async () => {
      const { blog, etag: created } = await create();
      expect(created).toMatch(STRONG_TAG);

      const read = await t.http.get(`${BLOGS}/${blog.id}`).expect(200);
      expect(read.headers.etag).toBe(created);

      const updated = await put(blog.id, distinctBlogInput()).expect(200);
      expect(updated.headers.etag).toMatch(STRONG_TAG);
      expect(updated.headers.etag).not.toBe(created);
      expect((await t.http.get(`${BLOGS}/${blog.id}`).expect(200)).headers.etag).toBe(updated.headers.etag);

      // Also an update with the same values makes a new version (an update moves updatedAt too).
      const same = await put(blog.id, {
        title: updated.body.title,
        content: updated.body.content,
        author: updated.body.author,
      }).expect(200);
      expect(same.headers.etag).not.toBe(updated.headers.etag);
      await expect(versionOf(blog.id)).resolves.toBe(3);
    });

    it('two blogs never share a tag', async () => {
      const first = await create();
      const second = await create();
      expect(first.etag).not.toBe(second.etag);
    });

    it('the list has no ETag (decision: it changes with every write to any blog)', async () => {
      await create();
      const res = await t.http.get(BLOGS).expect(200);
      expect(res.headers.etag).toBeUndefined();
    });
  });

  describe('GET /api/v1/blogs/:id with If-None-Match', () => {
    let id: number;
    let etag: string;

    beforeAll(async () => {
      ({
        blog: { id },
        etag,
      } = await create());
    });

    function expectNotModified(res: Response): void {
      expect(res.status).toBe(304);
      expect(res.text ?? '').toBe('');
      expect(res.headers['content-length'] ?? '0').toBe('0');
      expect(res.headers.etag).toBe(etag);
    }

    it('the current tag → 304, no body, the ETag repeated', async () => {
      expectNotModified(await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', etag));
    });

    it('the current tag in a list, or its weak form (weak comparison), or * → 304', async () => {
      expectNotModified(await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', `"nope", ${etag}`));
      expectNotModified(await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', `W/${etag}`));
      expectNotModified(await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', '*'));
    });

    it('another tag → 200 with the blog; after an update the old tag → 200 with the new values and tag', async () => {
      const other = await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', '"0-0"').expect(200);
      expect(other.body.id).toBe(id);

      const changed = distinctBlogInput();
      const updated = await put(id, changed).expect(200);
      const stale = await t.http.get(`${BLOGS}/${id}`).set('If-None-Match', etag).expect(200);
      expect(stale.body).toMatchObject(changed);
      expect(stale.headers.etag).toBe(updated.headers.etag);
      etag = updated.headers.etag;
    });

    it('a missing blog is 404 whatever If-None-Match says', async () => {
      expectJsonError(await t.http.get(`${BLOGS}/2147483647`).set('If-None-Match', '*'), 404);
    });
  });

  describe('PUT /api/v1/blogs/:id with If-Match', () => {
    it('the current tag → 200, stored, new tag', async () => {
      const { blog, etag } = await create();
      const body = distinctBlogInput();
      const res = await put(blog.id, body, { 'If-Match': etag }).expect(200);
      expect(res.body).toMatchObject(body);
      expect(res.headers.etag).not.toBe(etag);
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject(body);
    });

    it('a stale tag → 412 with the JSON error body, and nothing changes (values, updatedAt, version)', async () => {
      const { blog, etag } = await create();
      await put(blog.id, distinctBlogInput(), { 'If-Match': etag }).expect(200);
      const before = await storedBlog(t, blog.id);

      const res = await put(blog.id, distinctBlogInput(), { 'If-Match': etag });

      expectJsonError(res, 412);
      expect(res.headers.etag).toBeUndefined();
      await expect(storedBlog(t, blog.id)).resolves.toEqual(before);
      await expect(versionOf(blog.id)).resolves.toBe(2);
    });

    it('* → 200 (the blog exists); a list holding the current tag → 200', async () => {
      const { blog, etag } = await create();
      const first = await put(blog.id, distinctBlogInput(), { 'If-Match': '*' }).expect(200);
      await put(blog.id, distinctBlogInput(), { 'If-Match': `${etag}, "x", ${first.headers.etag}` }).expect(200);
      await expect(versionOf(blog.id)).resolves.toBe(3);
    });

    it('the weak form of the current tag → 412 (If-Match compares strongly)', async () => {
      const { blog, etag } = await create();
      expectJsonError(await put(blog.id, distinctBlogInput(), { 'If-Match': `W/${etag}` }), 412);
      await expect(versionOf(blog.id)).resolves.toBe(1);
    });

    it('the tag of another blog, an unknown tag, or an empty list → 412', async () => {
      const { blog } = await create();
      const { etag: otherTag } = await create();
      for (const value of [otherTag, '"not-ours"', '""', '', ' , ']) {
        expectJsonError(await put(blog.id, distinctBlogInput(), { 'If-Match': value }), 412);
      }
      await expect(versionOf(blog.id)).resolves.toBe(1);
    });

    it('a malformed If-Match (unquoted tag, * in a list, junk after a tag) → 400 naming the header', async () => {
      const { blog, etag } = await create();
      for (const value of [etag.slice(1, -1), `*, ${etag}`, `${etag} x`, 'w/' + etag]) {
        const res = await put(blog.id, distinctBlogInput(), { 'If-Match': value });
        expectJsonError(res, 400);
        expect(res.body.message).toMatch(/If-Match/);
      }
      await expect(versionOf(blog.id)).resolves.toBe(1);
    });

    it('no If-Match: the last writer wins', async () => {
      const { blog, etag } = await create();
      await put(blog.id, distinctBlogInput(), { 'If-Match': etag }).expect(200);
      const last = distinctBlogInput();
      await put(blog.id, last).expect(200);
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject(last);
    });

    describe('keeps the order of checks: 401 → id 400 → 415 → body 400 → 404 → 403 → 412', () => {
      let id: number;
      const stale = '"stale"';

      beforeAll(async () => {
        ({
          blog: { id },
        } = await create());
      });

      it('no token → 401', async () => {
        expectUnauthorized(await t.http.put(`${BLOGS}/${id}`).set('If-Match', stale).send(distinctBlogInput()));
      });

      it('bad id → 400', async () => {
        expectJsonError(await put(0, distinctBlogInput(), { 'If-Match': stale }), 400);
      });

      it('wrong content type → 415', async () => {
        const res = await t.http
          .put(`${BLOGS}/${id}`)
          .set('Authorization', alice)
          .set('If-Match', stale)
          .set('Content-Type', 'text/plain')
          .send('x');
        expectJsonError(res, 415);
      });

      it('invalid body → 400 (also before a malformed If-Match)', async () => {
        const res = await put(id, { title: '', content: 'c', author: 'a' }, { 'If-Match': 'junk' });
        expectJsonError(res, 400);
        expect(JSON.stringify(res.body.message)).toMatch(/title/);
      });

      it('missing blog → 404, not 412', async () => {
        expectJsonError(await put(2147483647, distinctBlogInput(), { 'If-Match': stale }), 404);
        expectJsonError(await put(2147483647, distinctBlogInput(), { 'If-Match': '*' }), 404);
      });

      it('not the owner → 403, not 412', async () => {
        expectJsonError(await put(id, distinctBlogInput(), { 'If-Match': stale }, bearer(t.token('bob'))), 403);
      });
    });
  });

  describe('PUT /api/v1/blogs/:id with If-None-Match', () => {
    it('* → 412 (the blog exists), the current tag → 412, another tag → 200', async () => {
      const { blog, etag } = await create();
      const exists = await put(blog.id, distinctBlogInput(), { 'If-None-Match': '*' });
      expectJsonError(exists, 412);
      expect(exists.body.message).toBe(
        `Blog ${blog.id} exists (If-None-Match: *): the precondition holds only where there is no blog`,
      );
      const changed = await put(blog.id, distinctBlogInput(), { 'If-None-Match': `W/${etag}` });
      expectJsonError(changed, 412);
      expect(changed.body.message).toMatch(new RegExp(`^Blog ${blog.id} has changed: `));
      await expect(versionOf(blog.id)).resolves.toBe(1);
      await put(blog.id, distinctBlogInput(), { 'If-None-Match': '"0-0"' }).expect(200);
      await expect(versionOf(blog.id)).resolves.toBe(2);
    });
  });

  describe('lost updates: 50 concurrent PUTs with the same If-Match', () => {
    it("exactly one 200 and 49 × 412; the stored blog equals the winner's body, at version 2", async () => {
      const { blog, etag } = await create();
      const bodies = Array.from({ length: 50 }, (_, i) => ({
        title: `racer ${i}`,
        content: `content of racer ${i}`,
        author: `author ${i}`,
      }));

      const results = await Promise.all(bodies.map((body) => put(blog.id, body, { 'If-Match': etag })));

      const statuses = results.map((res) => res.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 412)).toHaveLength(49);
      for (const res of results) if (res.status === 412) expectJsonError(res, 412);
      const winner = results.findIndex((res) => res.status === 200);
      expect(results[winner].body).toMatchObject(bodies[winner]);
      await expect(storedBlog(t, blog.id)).resolves.toMatchObject(bodies[winner]);
      await expect(versionOf(blog.id)).resolves.toBe(2);
      expect(results[winner].headers.etag).toBe((await t.http.get(`${BLOGS}/${blog.id}`).expect(200)).headers.etag);
    });
  });

  // The 50 racers above mostly lose at the read (the winner committed before they read). Here every
  // racer has read version 1 before any UPDATE runs, so only the UPDATE's own version check can
  // stop them: the test holds the row lock until all of them wait on it. Needs a second session
  // beside the app's, so a PostgreSQL server.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    'PostgreSQL: racers that all read version 1 before any UPDATE runs → still exactly one 200, the rest 412',
    async () => {
      const { blog, etag } = await create();
      const url = (t.database.env as { DATABASE_URL: string }).DATABASE_URL;
      const locker = new Client({ connectionString: url });
      await locker.connect();
      const racers = 10; // the pool size: all of them can wait on the lock at once
      try {
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM blogs WHERE id = $1 FOR UPDATE', [blog.id]);
        const bodies = Array.from({ length: racers }, (_, i) => ({
          title: `locked racer ${i}`,
          content: `c ${i}`,
          author: `a ${i}`,
        }));
        const pending = Promise.all(bodies.map((body) => put(blog.id, body, { 'If-Match': etag })));
        let waiting = 0;
        for (let tries = 0; tries < 100 && waiting < racers; tries += 1) {
          // Inside a transaction the statistics views keep their first snapshot unless cleared.
          await locker.query('SELECT pg_stat_clear_snapshot()');
          const rows: { n: string }[] = (
            await locker.query(
              `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE "blogs" SET%'`,
            )
          ).rows;
          waiting = Number(rows[0].n);
          if (waiting < racers) await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(waiting).toBe(racers);
        await locker.query('COMMIT');

        const results = await pending;
        const statuses = results.map((res) => res.status).sort();
        expect(statuses).toEqual([200, ...Array.from({ length: racers - 1 }, () => 412)]);
        const winner = results.findIndex((res) => res.status === 200);
        await expect(storedBlog(t, blog.id)).resolves.toMatchObject(bodies[winner]);
        await expect(versionOf(blog.id)).resolves.toBe(2);
      } finally {
        await locker.end();
      }
    },
  );
});

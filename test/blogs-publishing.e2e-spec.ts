/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Response } from 'supertest';
import { CreateBlogs1795323623852 } from '../src/blogs/migrations/1795323623852-CreateBlogs';
import { CountBlogs1795400000000 } from '../src/blogs/migrations/1795400000000-CountBlogs';
import { AddBlogVersion1795400100000 } from '../src/blogs/migrations/1795400100000-AddBlogVersion';
import { AddBlogListIndexes1795400200000 } from '../src/blogs/migrations/1795400200000-AddBlogListIndexes';
import { buildDataSourceOptions } from '../src/database/data-source-options';
import {
  bearer,
  BlogBody,
  BlogListBody,
  BLOGS,
  countBlogs,
  distinctBlogInput,
  expectJsonError,
  messagesOf,
  sleep,
} from './support/blog-api';
import { useTestApp } from './support/test-app';
import { createTestDatabase, withDataSource } from './support/test-database';

// Publishing over HTTP: drafts, scheduled posts that go live at their instant with no write, who sees what, the
// status list parameter and publishedAt order, slugs (made, explicit, conflicting, concurrent, earlier ones
// redirecting), and what a write that breaks a rule leaves behind (nothing).

const MISSING_ID = 2_147_483_647;
const HOUR = 3_600_000;

type Body = Record<string, unknown>;

describe('blogs: publishing and slugs (e2e)', () => {
  const t = useTestApp();
  const admin = () => bearer(t.token('root', { scope: 'blogs:admin' }));
  const as = (sub: string) => bearer(t.token(sub));

  /** POSTs `extra` beside a distinct valid body as `sub`. */
  const post = (extra: Body = {}, sub = 'alice'): Promise<Response> =>
    t.http
      .post(BLOGS)
      .set('Authorization', as(sub))
      .send({ ...distinctBlogInput('publishing'), ...extra });

  /** POSTs and expects 201; the blog as answered. */
  const create = async (extra: Body = {}, sub = 'alice'): Promise<BlogBody> => {
    const res = await post(extra, sub);
    expect(res.status).toBe(201);
    return res.body as BlogBody;
  };

  const patch = (id: number, body: Body, authorization = as('alice')): Promise<Response> =>
    t.http.patch(`${BLOGS}/${id}`).set('Authorization', authorization).send(body);

  const read = (path: string, authorization?: string): Promise<Response> => {
    const request = t.http.get(path);
    return authorization === undefined ? request : request.set('Authorization', authorization);
  };

  /** The list as `authorization` (none: anonymous) asks for it with `query`. */
  const list = async (query: Record<string, string>, authorization?: string): Promise<BlogListBody> => {
    const res = await read(`${BLOGS}?${new URLSearchParams(query).toString()}`, authorization);
    expect(res.status).toBe(200);
    return res.body as BlogListBody;
  };

  const inFuture = (ms: number): string => new Date(Date.now() + ms).toISOString();

  describe('drafts and who sees them', () => {
    let draft: BlogBody;

    beforeAll(async () => {
      draft = await create({ status: 'draft' });
    });

    it('a draft is created with status draft, publishedAt null and a slug', () => {
      expect(draft).toMatchObject({ status: 'draft', publishedAt: null, slug: expect.stringMatching(/^publishing-/) });
    });

    it.each<[string, () => string | undefined, number]>([
      ['anyone without a token', () => undefined, 404],
      ['an invalid token (read as none, never 401)', () => 'Bearer not-a-token', 404],
      ['another user', () => as('bob'), 404],
      ['its owner', () => as('alice'), 200],
      ['a blogs:admin token', admin, 200],
    ])('by id and by slug: %s gets %i', async (_name, authorization, status) => {
      for (const path of [`${BLOGS}/${draft.id}`, `${BLOGS}/slug/${draft.slug}`]) {
        const res = await read(path, authorization());
        expect(res.status).toBe(status);
        if (status === 404) {
          expectJsonError(res, 404);
          const missing = await read(
            path.endsWith(String(draft.id)) ? `${BLOGS}/${MISSING_ID}` : `${BLOGS}/slug/no-such-slug`,
          );
          expect(messagesOf(res)[0].replace(/\S+ not found$/, '')).toBe(
            messagesOf(missing)[0].replace(/\S+ not found$/, ''),
          );
        } else {
          expect(res.body).toEqual(draft);
        }
      }
    });

    it('the public list and its total leave drafts out', async () => {
      const before = await list({ limit: '100' });
      await create({ status: 'draft' });
      const after = await list({ limit: '100' });

      expect(after.total).toBe(before.total);
      expect(after.data.map((blog) => blog.status)).not.toContain('draft');
    });

    describe('a search', () => {
      const word = `searched${Date.now()}`;
      const ids: Record<'live' | 'draft' | 'scheduled' | 'bobs', number> = { live: 0, draft: 0, scheduled: 0, bobs: 0 };

      beforeAll(async () => {
        const content = `a ${word} here`;
        ids.live = (await create({ content })).id;
        ids.draft = (await create({ content, status: 'draft' })).id;
        ids.scheduled = (await create({ content, publishedAt: inFuture(HOUR) })).id;
        ids.bobs = (await create({ content, status: 'draft' }, 'bob')).id;
      });

      it.each<[string, Record<string, string>, (() => string) | undefined, (keyof typeof ids)[]]>([
        ['anyone without a token: the live blog alone', {}, undefined, ['live']],
        ['its owner, status=draft', { status: 'draft' }, () => as('alice'), ['draft']],
        ['its owner, status=scheduled', { status: 'scheduled' }, () => as('alice'), ['scheduled']],
        ['its owner, status=any: its own blogs', { status: 'any' }, () => as('alice'), ['live', 'draft', 'scheduled']],
        [
          'a blogs:admin token, status=any: every owner’s',
          { status: 'any' },
          admin,
          ['live', 'draft', 'scheduled', 'bobs'],
        ],
      ])('%s, counted exactly', async (_name, query, authorization, expected) => {
        const body = await list({ q: word, sort: 'id', limit: '10', ...query }, authorization?.());

        expect({ ids: body.data.map((blog) => blog.id), total: body.total, totalRelation: body.totalRelation }).toEqual(
          {
            ids: expected.map((name) => ids[name]),
            total: expected.length,
            totalRelation: 'eq',
          },
        );
      });
    });

    it('status=draft needs a token (401), and lists the caller’s own drafts, every owner’s for blogs:admin', async () => {
      const bobs = await create({ status: 'draft' }, 'bob');
      const res = await read(`${BLOGS}?status=draft`);
      expectJsonError(res, 401);

      const alices = await list({ status: 'draft', limit: '100' }, as('alice'));
      expect(alices.data.every((blog) => blog.status === 'draft')).toBe(true);
      expect(alices.data.map((blog) => blog.id)).toContain(draft.id);
      expect(alices.data.map((blog) => blog.id)).not.toContain(bobs.id);
      expect(alices.total).toBe(alices.data.length);

      const all = await list({ status: 'draft', limit: '100' }, admin());
      expect(all.data.map((blog) => blog.id)).toEqual(expect.arrayContaining([draft.id, bobs.id]));
    });

    it('publishing a draft makes it live now: status published, counted, seen by all', async () => {
      const blog = await create({ status: 'draft' });
      const before = await list({});

      const res = await patch(blog.id, { status: 'published' });

      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'published', slug: blog.slug });
      expect(Date.parse(res.body.publishedAt as string)).toBeGreaterThan(Date.parse(blog.createdAt) - 60_000);
      await expect(read(`${BLOGS}/${blog.id}`)).resolves.toMatchObject({ status: 200 });
      await expect(list({})).resolves.toMatchObject({ total: before.total + 1 });
    });
  });

  describe('scheduled posts', () => {
    it('go live at their instant with no write: status, visibility, total and ETag follow the clock', async () => {
      const publishedAt = inFuture(1_500);
      const blog = await create({ status: 'scheduled', publishedAt });
      expect(blog).toMatchObject({ status: 'scheduled', publishedAt });
      const owner = await read(`${BLOGS}/${blog.id}`, as('alice'));
      expect(owner.headers.etag).toBe(`"${blog.id}-1-scheduled"`);
      await expect(read(`${BLOGS}/${blog.id}`)).resolves.toMatchObject({ status: 404 });
      const before = await list({ limit: '100' });
      expect(before.data.map((b) => b.id)).not.toContain(blog.id);

      while (Date.now() <= Date.parse(publishedAt)) await sleep(100);

      const live = await read(`${BLOGS}/${blog.id}`);
      expect(live.status).toBe(200);
      expect(live.body).toMatchObject({ status: 'published', publishedAt });
      expect(live.headers.etag).toBe(`"${blog.id}-1"`);
      // A representation that said "scheduled" is not current any more.
      await expect(t.http.get(`${BLOGS}/${blog.id}`).set('If-None-Match', owner.headers.etag)).resolves.toMatchObject({
        status: 200,
      });
      const after = await list({ limit: '100' });
      expect(after.total).toBe(before.total + 1);
      expect(after.data.map((b) => b.id)).toContain(blog.id);
    });

    it('If-Match with the scheduled ETag fails once the blog is live (412), nothing changed', async () => {
      const publishedAt = inFuture(800);
      const blog = await create({ status: 'scheduled', publishedAt });
      while (Date.now() <= Date.parse(publishedAt)) await sleep(100);

      const res = await t.http
        .patch(`${BLOGS}/${blog.id}`)
        .set('Authorization', as('alice'))
        .set('If-Match', `"${blog.id}-1-scheduled"`)
        .send({ title: 'changed' });

      expectJsonError(res, 412);
      await expect(read(`${BLOGS}/${blog.id}`)).resolves.toMatchObject({ body: { title: blog.title } });
    });

    it('a backdated create is live at once with its instant', async () => {
      const blog = await create({ status: 'published', publishedAt: '2020-02-02T02:02:02.002Z' });
      expect(blog).toMatchObject({ status: 'published', publishedAt: '2020-02-02T02:02:02.002Z' });
      await expect(read(`${BLOGS}/${blog.id}`)).resolves.toMatchObject({ status: 200 });
    });

    it('sort=publishedAt orders by instant, drafts last in either direction', async () => {
      const sub = `sorter-${Date.now()}`;
      const early = await create({ publishedAt: '2001-01-01T00:00:00Z' }, sub);
      const late = await create({ publishedAt: '2002-01-01T00:00:00Z' }, sub);
      const draft = await create({ status: 'draft' }, sub);
      const ids = async (sort: string) =>
        (await list({ status: 'any', sort, limit: '100' }, as(sub))).data.map((blog) => blog.id);

      await expect(ids('publishedAt')).resolves.toEqual([early.id, late.id, draft.id]);
      await expect(ids('-publishedAt')).resolves.toEqual([late.id, early.id, draft.id]);
      const page = await list({ status: 'any', sort: 'publishedAt', limit: '2' }, as(sub));
      const next = await list({ status: 'any', sort: 'publishedAt', limit: '2', cursor: page.nextCursor! }, as(sub));
      expect(next.data.map((blog) => blog.id)).toEqual([draft.id]);
      const other = await read(`${BLOGS}?status=draft&sort=publishedAt&cursor=${page.nextCursor}`, as(sub));
      expectJsonError(other, 400);
    });
  });

  describe('rules of status and publishedAt: 400 naming publishedAt, nothing stored', () => {
    it.each<[string, Body]>([
      ['draft with an instant', { status: 'draft', publishedAt: '2026-01-01T00:00:00Z' }],
      ['scheduled without publishedAt', { status: 'scheduled' }],
      ['scheduled in the past', { status: 'scheduled', publishedAt: '2020-01-01T00:00:00Z' }],
      ['published with null', { status: 'published', publishedAt: null }],
      ['null without status', { publishedAt: null }],
      ['an instant before 1970', { publishedAt: '1969-12-31T23:59:59Z' }],
      ['an unknown status', { status: 'live' }],
    ])('create: %s', async (_name, extra) => {
      const before = await countBlogs(t);
      const res = await post(extra);
      expectJsonError(res, 400);
      expect(messagesOf(res).some((m) => m.startsWith('publishedAt') || m.startsWith('status'))).toBe(true);
      await expect(countBlogs(t)).resolves.toBe(before);
    });

    it.each<[string, Body, Body]>([
      ['scheduled without publishedAt on a live blog', {}, { status: 'scheduled' }],
      ['an instant without status on a draft', { status: 'draft' }, { publishedAt: inFuture(HOUR) }],
      ['null without status on a live blog', {}, { publishedAt: null }],
    ])('update: %s', async (_name, created, change) => {
      const blog = await create(created);
      const res = await patch(blog.id, change);
      expectJsonError(res, 400);
      expect(messagesOf(res)[0]).toMatch(/^publishedAt /);
      await expect(read(`${BLOGS}/${blog.id}`, as('alice'))).resolves.toMatchObject({ body: blog });
    });

    it('the stored blog’s rules come after 404 and 403', async () => {
      const blog = await create();
      await expect(patch(MISSING_ID, { status: 'scheduled' })).resolves.toMatchObject({ status: 404 });
      await expect(patch(blog.id, { status: 'scheduled' }, as('bob'))).resolves.toMatchObject({ status: 403 });
    });

    it('scheduled without publishedAt keeps a scheduled blog as it is', async () => {
      const blog = await create({ status: 'scheduled', publishedAt: inFuture(HOUR) });
      const res = await patch(blog.id, { status: 'scheduled', title: 'still scheduled' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'scheduled', publishedAt: blog.publishedAt, title: 'still scheduled' });
    });

    it('a 1.0 PUT (three fields) unpublishes nothing and keeps the slug', async () => {
      const blog = await create({ status: 'scheduled', publishedAt: inFuture(HOUR), slug: `kept-${Date.now()}` });
      const res = await t.http
        .put(`${BLOGS}/${blog.id}`)
        .set('Authorization', as('alice'))
        .send({ title: 'New', content: 'New', author: 'New' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'scheduled', publishedAt: blog.publishedAt, slug: blog.slug });
    });
  });

  describe('slugs', () => {
    it('are made from the title: transliterated, lower case, the lowest free suffix', async () => {
      const title = `Hello, Wörld & Straße ${Date.now()}`;
      const first = await create({ title });
      const second = await create({ title });
      expect(first.slug).toMatch(/^hello-world-strasse-\d+$/);
      expect(second.slug).toBe(`${first.slug}-2`);
    });

    it('a title without letters or digits gets blog-…', async () => {
      await expect(create({ title: '🎉' })).resolves.toMatchObject({ slug: expect.stringMatching(/^blog(-\d+)?$/) });
    });

    it("an explicit slug that is another blog's is 409, nothing stored", async () => {
      const slug = `taken-${Date.now()}`;
      const owner = await create({ slug });
      const before = await countBlogs(t);

      const res = await post({ slug }, 'bob');
      expectJsonError(res, 409);
      expect(messagesOf(res)).toEqual(["slug is another blog's slug: choose another one"]);
      await expect(countBlogs(t)).resolves.toBe(before);

      const other = await create();
      const clash = await patch(other.id, { slug });
      expectJsonError(clash, 409);
      await expect(read(`${BLOGS}/slug/${slug}`)).resolves.toMatchObject({ body: { id: owner.id } });
    });

    it('100 concurrent creates of one title: 100 × 201 and 100 distinct slugs, the base and -2 … -100', async () => {
      const title = `Concurrent ${Date.now()}`;
      const answers = await Promise.all(Array.from({ length: 100 }, () => post({ title })));
      expect(answers.map((res) => res.status)).toEqual(Array.from({ length: 100 }, () => 201));
      const slugs = answers.map((res) => (res.body as BlogBody).slug);
      const base = `concurrent-${title.split(' ')[1]}`;
      expect(new Set(slugs).size).toBe(100);
      expect(slugs.sort()).toEqual([base, ...Array.from({ length: 99 }, (_, i) => `${base}-${i + 2}`)].sort());
    });

    it('a changed slug: the earlier one answers 301 to the current path, under the prefix of the request', async () => {
      const blog = await create({ slug: `before-${Date.now()}` });
      const current = `after-${Date.now()}`;
      await expect(patch(blog.id, { slug: current })).resolves.toMatchObject({ status: 200, body: { slug: current } });

      for (const prefix of [BLOGS, '/api/blogs', '/v1/blogs']) {
        const res = await read(`${prefix}/slug/${blog.slug}`);
        expect({
          status: res.status,
          location: res.headers.location,
          cacheControl: res.headers['cache-control'],
        }).toEqual({ status: 301, location: `${prefix}/slug/${current}`, cacheControl: 'no-cache' });
      }
      const res = await read(`${BLOGS}/slug/${current}`);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(`"${blog.id}-2"`);
      await expect(
        t.http.get(`${BLOGS}/slug/${current}`).set('If-None-Match', res.headers.etag),
      ).resolves.toMatchObject({ status: 304 });
    });

    it('an earlier slug of a draft is 404 to others, 301 to its owner; taking it ends the redirect', async () => {
      const earlier = `hidden-${Date.now()}`;
      const blog = await create({ status: 'draft', slug: earlier });
      await patch(blog.id, { slug: `${earlier}-now` });
      await expect(read(`${BLOGS}/slug/${earlier}`)).resolves.toMatchObject({ status: 404 });
      await expect(read(`${BLOGS}/slug/${earlier}`, as('alice'))).resolves.toMatchObject({ status: 301 });

      const taker = await create({ slug: earlier }, 'bob');
      await expect(read(`${BLOGS}/slug/${earlier}`)).resolves.toMatchObject({ status: 200, body: { id: taker.id } });
    });

    it('a deleted blog frees its slugs', async () => {
      const slug = `freed-${Date.now()}`;
      const blog = await create({ slug });
      await t.http.delete(`${BLOGS}/${blog.id}`).set('Authorization', as('alice')).expect(204);
      await expect(read(`${BLOGS}/slug/${slug}`)).resolves.toMatchObject({ status: 404 });
      await expect(create({ slug }, 'bob')).resolves.toMatchObject({ slug });
    });

    it.each(['Hello', 'a--b', '-a', 'a_b', `${'a'.repeat(201)}`, 'h%C3%A9'])(
      'GET /blogs/slug/%s: 400 naming slug',
      async (slug) => {
        const res = await read(`${BLOGS}/slug/${slug}`);
        expectJsonError(res, 400);
        expect(messagesOf(res)[0]).toMatch(/^slug /);
      },
    );
  });

  describe('tags', () => {
    /** A tag name unique to this run. */
    const unique = (name: string) => `${name} ${Date.now()}${Math.floor(Math.random() * 1000)}`;
    const slugOf = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const tagCount = async (slug: string): Promise<number> => {
      const res = await read(`/api/v1/tags/${slug}`);
      return res.status === 404 ? 0 : (res.body as { count: number }).count;
    };
    const storedTags = async (): Promise<number> =>
      Number((await t.dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM tags'))[0].n);

    it('a blog keeps its tags in the order given, one per slug, each named as first given', async () => {
      const nest = unique('NestJS');
      const node = unique('Node.js');
      const blog = await create({ tags: [nest, nest.toLowerCase(), node] });
      expect(blog.tags).toEqual([nest, node]);

      const later = await create({ tags: [nest.toUpperCase()] }, 'bob');
      expect(later.tags).toEqual([nest]);
      await expect(read(`${BLOGS}/${later.id}`)).resolves.toMatchObject({ body: { tags: [nest] } });
      await expect(read(`/api/v1/tags/${slugOf(nest)}`)).resolves.toMatchObject({
        status: 200,
        body: { slug: slugOf(nest), name: nest, count: 2 },
      });
    });

    it('counts live blogs only: a draft does not count, a scheduled post counts from its instant on', async () => {
      const name = unique('Scheduled');
      await create({ tags: [name] });
      await create({ tags: [name], status: 'draft' });
      const publishedAt = inFuture(1_000);
      await create({ tags: [name], status: 'scheduled', publishedAt });
      await expect(tagCount(slugOf(name))).resolves.toBe(1);
      await expect(list({ tag: slugOf(name) })).resolves.toMatchObject({ total: 1 });

      while (Date.now() <= Date.parse(publishedAt)) await sleep(100);

      await expect(tagCount(slugOf(name))).resolves.toBe(2);
      await expect(list({ tag: slugOf(name) })).resolves.toMatchObject({ total: 2 });
    });

    it('?tag= lists the blogs that have every tag given, with an exact total and cursors bound to the tags', async () => {
      const a = unique('Alpha');
      const b = unique('Beta');
      const both = await create({ tags: [a, b] });
      const onlyA = await create({ tags: [a] });
      await create({ tags: [b] });

      const alphas = await list({ tag: slugOf(a) });
      expect(alphas.total).toBe(2);
      expect(alphas.data.map((blog) => blog.id)).toEqual([onlyA.id, both.id]);
      await expect(list({ tag: `${slugOf(a)},${slugOf(b)}` })).resolves.toMatchObject({
        total: 1,
        data: [{ id: both.id }],
      });
      await expect(list({ tag: slugOf(a), author: onlyA.author })).resolves.toMatchObject({ total: 1 });

      const page = await list({ tag: slugOf(a), limit: '1' });
      const next = await list({ tag: slugOf(a), limit: '1', cursor: page.nextCursor! });
      expect(next.data.map((blog) => blog.id)).toEqual([both.id]);
      expectJsonError(await read(`${BLOGS}?tag=${slugOf(b)}&limit=1&cursor=${page.nextCursor}`), 400);
    });

    it('PATCH replaces the tags, [] removes them, and the counts follow', async () => {
      const name = unique('Patched');
      const blog = await create({ tags: [name] });
      await expect(tagCount(slugOf(name))).resolves.toBe(1);

      await expect(patch(blog.id, { tags: [] })).resolves.toMatchObject({ status: 200, body: { tags: [] } });
      await expect(tagCount(slugOf(name))).resolves.toBe(0);
      await expect(patch(blog.id, { tags: [name] })).resolves.toMatchObject({ status: 200, body: { tags: [name] } });
      await expect(tagCount(slugOf(name))).resolves.toBe(1);
      // A 1.0 PUT keeps them.
      await t.http
        .put(`${BLOGS}/${blog.id}`)
        .set('Authorization', as('alice'))
        .send({ title: 'T', content: 'C', author: 'A' })
        .expect(200);
      await expect(read(`${BLOGS}/${blog.id}`)).resolves.toMatchObject({ body: { tags: [name] } });
    });

    it.each<[string, unknown, string]>([
      ['a name without a letter or digit', ['ok', '!!!'], 'tags[1] must contain a letter or digit'],
      ['21 names', Array.from({ length: 21 }, (_, i) => `t${i}`), 'tags must have at most 20 names'],
      ['a name of 51 characters', ['x'.repeat(51)], 'tags[0] must be 1 to 50 characters long'],
      ['an empty name', [''], 'tags[0] must be 1 to 50 characters long'],
      ['whitespace only', [' '], 'tags[0] must not be whitespace only'],
      ['not an array', 'NestJS', 'tags must be an array of names'],
      ['a number', [1], 'tags[0] must be a string'],
      ['null', null, 'tags must be an array of names'],
    ])('400 naming tags for %s: nothing stored, no tag made', async (_name, tags, message) => {
      const before = { blogs: await countBlogs(t), tags: await storedTags() };
      const res = await post({ tags });
      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual([message]);
      await expect(Promise.all([countBlogs(t), storedTags()])).resolves.toEqual([before.blogs, before.tags]);
    });

    it('a refused update (403, 412) stores no tag', async () => {
      const blog = await create();
      const before = await storedTags();
      await expect(patch(blog.id, { tags: [unique('Refused')] }, as('bob'))).resolves.toMatchObject({ status: 403 });
      const conditional = await t.http
        .patch(`${BLOGS}/${blog.id}`)
        .set('Authorization', as('alice'))
        .set('If-Match', `"${blog.id}-99"`)
        .send({ tags: [unique('Refused')] });
      expect(conditional.status).toBe(412);
      await expect(storedTags()).resolves.toBe(before);
    });

    it.each(['NestJS', 'a,,b', 'a,b,c,d,e,f', `${'x'.repeat(51)}`, ','])('?tag=%s is 400 naming tag', async (tag) => {
      const res = await read(`${BLOGS}?tag=${encodeURIComponent(tag)}`);
      expectJsonError(res, 400);
      expect(messagesOf(res)[0]).toMatch(/^tag /);
    });
  });
});

describe('migration AddPublishing on a table that already has blogs (e2e)', () => {
  it('publishes them when they were created, gives them the slugs of their titles, and keeps the counter', async () => {
    const database = await createTestDatabase({ empty: true });
    const env = database.env;
    // Migrations run on the direct session (DATABASE_MIGRATION_URL when the run goes through PgBouncer).
    const url = env.DATABASE_MIGRATION_URL ?? env.DATABASE_URL;
    const options = buildDataSourceOptions({ url, dataDir: env.DATA_DIR ?? '' });
    try {
      const migrations = [
        CreateBlogs1795323623852,
        CountBlogs1795400000000,
        AddBlogVersion1795400100000,
        AddBlogListIndexes1795400200000,
      ];
      await withDataSource({ ...options, migrations }, async (before) => {
        await before.runMigrations();
        await before.query(
          `INSERT INTO blogs (title, content, author, owner_sub, created_at) VALUES
            ('Hello, Wörld', 'c', 'a', 'x', '2020-01-01T00:00:00Z'), ('Hello World', 'c', 'a', 'x', '2020-01-02T00:00:00Z'),
            ('🎉', 'c', 'a', 'x', '2020-01-03T00:00:00Z'), ('!!!', 'c', 'a', 'x', '2020-01-04T00:00:00Z')`,
        );
      });

      await withDataSource(options, async (after) => {
        await after.runMigrations();
        const rows: { slug: string; same: boolean }[] = await after.query(
          'SELECT slug, published_at = created_at AS same FROM blogs ORDER BY id',
        );
        expect(rows).toEqual([
          { slug: 'hello-world', same: true },
          { slug: 'hello-world-2', same: true },
          { slug: 'blog', same: true },
          { slug: 'blog-2', same: true },
        ]);
        const [{ total }]: { total: string | number }[] = await after.query('SELECT sum(n) AS total FROM blog_counts');
        expect(Number(total)).toBe(4);
      });
    } finally {
      await database.drop();
    }
  });
});

/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { FeedsRepository } from '../src/feeds/feeds.repository';
import { bearer, BLOGS, expectJsonError } from './support/blog-api';
import { TestApp, useTestApp } from './support/test-app';

// Sitemaps (contract 1.6): the index and its files, valid against the sitemaps.org schemas (xmllint --schema); every
// live blog in exactly one file; the index's lastmod kept right through creates, updates and deletes.

const PUBLIC_URL = 'https://api.blog.example';
const SCHEMAS = join(__dirname, 'fixtures', 'sitemaps');

/** xmllint's verdict on `xml` against the schema `xsd`: empty when valid, else its messages. */
function schemaErrors(xml: string, xsd: 'sitemap.xsd' | 'siteindex.xsd'): string {
  try {
    execFileSync('xmllint', ['--noout', '--schema', join(SCHEMAS, xsd), '-'], { input: xml, stdio: 'pipe' });
    return '';
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr ?? error);
  }
}

/** The `<loc>` and `<lastmod>` pairs of a sitemap or index (its text is schema-checked separately). */
const entriesOf = (xml: string): { loc: string; lastmod: string }[] =>
  [...xml.matchAll(/<loc>([^<]*)<\/loc><lastmod>([^<]*)<\/lastmod>/g)].map(([, loc, lastmod]) => ({ loc, lastmod }));

/** Creates a blog with `body` through the API; answers its id and slug. */
async function create(t: TestApp, body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const res = await t.http
    .post(BLOGS)
    .set('Authorization', bearer(t.token('alice')))
    .send(body);
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201 });
  return res.body as { id: number; slug: string };
}

/** What the index must say, computed from the blogs table: per file of `size` ids, the newest updated_at of its live blogs. */
async function expectedIndex(t: TestApp, size: number): Promise<{ loc: string; lastmod: string }[]> {
  const rows: { file: number | string; lastmod: Date | string }[] = await t.dataSource.query(
    `SELECT ("id" - 1) / $1 + 1 AS "file", max("updated_at") AS "lastmod" FROM "blogs" WHERE "published_at" <= now()
     GROUP BY 1 ORDER BY 1`,
    [size],
  );
  return rows.map(({ file, lastmod }) => ({
    loc: `${PUBLIC_URL}/api/v1/sitemaps/blogs-${file}.xml`,
    lastmod: new Date(lastmod).toISOString(),
  }));
}

describe.each([
  ['within one block of ids (SITEMAP_SIZE=1000: blocks read whole)', 1000],
  ['across blocks (SITEMAP_SIZE=2: blocks counted from their blogs)', 2],
])('sitemaps %s (e2e)', (_name, size) => {
  const t = useTestApp({ PUBLIC_URL, SITEMAP_SIZE: String(size) });
  const admin = (): string => bearer(t.token('root', { scope: 'blogs:admin' }));
  const live: { id: number; slug: string }[] = [];

  beforeAll(async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    for (let i = 1; i <= 7; i += 1) live.push(await create(t, { title: `Blog ${i}`, content: 'x', author: 'Alice' }));
    await create(t, { title: 'Draft', content: 'x', author: 'Alice', status: 'draft' });
    await create(t, {
      title: 'Later',
      content: 'x',
      author: 'Alice',
      status: 'scheduled',
      publishedAt: '2999-01-01T00:00:00Z',
    });
  });

  /** Every `<loc>` of every file the index lists, and each file's text schema-checked. */
  async function allUrls(): Promise<string[]> {
    const index = await t.http.get('/api/v1/sitemap.xml');
    expect(index.status).toBe(200);
    expect(schemaErrors(index.text, 'siteindex.xsd')).toBe('');
    const urls: string[] = [];
    for (const { loc } of entriesOf(index.text)) {
      expect(loc.startsWith(`${PUBLIC_URL}/api/v1/sitemaps/blogs-`)).toBe(true);
      const file = await t.http.get(loc.slice(PUBLIC_URL.length));
      expect(file.status).toBe(200);
      expect(file.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(schemaErrors(file.text, 'sitemap.xsd')).toBe('');
      const entries = entriesOf(file.text);
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.length).toBeLessThanOrEqual(size);
      urls.push(...entries.map((entry) => entry.loc));
    }
    return urls;
  }

  it('lists every live blog in exactly one file, by id, and no draft or scheduled blog', async () => {
    expect(await allUrls()).toEqual(live.map(({ slug }) => `${PUBLIC_URL}/api/v1/blogs/slug/${slug}`));
  });

  it("gives each file's lastmod as the newest updatedAt of its live blogs, through updates and deletes", async () => {
    const check = async (): Promise<void> => {
      const index = await t.http.get('/api/v1/sitemap.xml');
      expect(entriesOf(index.text)).toEqual(await expectedIndex(t, size));
    };
    await check();
    // The newest update, then that blog deleted: the lastmod goes back to the newest left.
    const patch = await t.http
      .patch(`${BLOGS}/${live[1].id}`)
      .set('Authorization', admin())
      .set('Content-Type', 'application/merge-patch+json')
      .send({ content: 'changed' });
    expect(patch.status).toBe(200);
    await check();
    expect((await t.http.delete(`${BLOGS}/${live[1].id}`).set('Authorization', admin())).status).toBe(204);
    await check();
    // A blog made a draft leaves its file; published again it comes back.
    const draft = await t.http
      .patch(`${BLOGS}/${live[0].id}`)
      .set('Authorization', admin())
      .set('Content-Type', 'application/merge-patch+json')
      .send({ status: 'draft' });
    expect(draft.status).toBe(200);
    await check();
    expect(await allUrls()).not.toContain(`${PUBLIC_URL}/api/v1/blogs/slug/${live[0].slug}`);
    const back = await t.http
      .patch(`${BLOGS}/${live[0].id}`)
      .set('Authorization', admin())
      .set('Content-Type', 'application/merge-patch+json')
      .send({ status: 'published' });
    expect(back.status).toBe(200);
    await check();
    live.splice(1, 1);
    expect(await allUrls()).toEqual(live.map(({ slug }) => `${PUBLIC_URL}/api/v1/blogs/slug/${slug}`));
  });

  it.each([
    '/api/v1/sitemaps/blogs-9999.xml',
    '/api/v1/sitemaps/blogs-0.xml',
    '/api/v1/sitemaps/blogs-01.xml',
    '/api/v1/sitemaps/blogs-x.xml',
  ])('%s, no file of live blogs, is 404 with the JSON problem body', async (path) => {
    expectJsonError(await t.http.get(path), 404);
  });

  it.each([
    ['01', '01'],
    ['2147483648', '2147483648'],
    ['99999999999999999999', '99999999999999999999'],
  ])('blogs-%s.xml, no file, is 404 naming the file as the path wrote it', async (n, named) => {
    const res = await t.http.get(`/api/v1/sitemaps/blogs-${n}.xml`);
    expectJsonError(res, 404);
    expect((res.body as { detail: string }).detail).toBe(`Sitemap file ${named} not found`);
  });

  it.each(['/api/v1', '/api', '/v1'])(
    'serves %s/sitemap.xml and its files, public under the key blogs',
    async (prefix) => {
      for (const path of [`${prefix}/sitemap.xml`, `${prefix}/sitemaps/blogs-1.xml`]) {
        const res = await t.http.get(path);
        expect(res.status).toBe(200);
        expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
        expect(res.headers['cache-control']).toMatch(/^public, /);
        expect(res.headers['surrogate-key']).toBe('blogs');
      }
    },
  );

  it.each(['/api/v1/sitemap.xml', '/api/v1/sitemaps/blogs-1.xml'])(
    '%s: ETag and Last-Modified, 304 on a match, HEAD as GET, no URL from the Host header',
    async (path) => {
      const res = await t.http.get(path).set('Host', 'evil.example').set('X-Forwarded-Host', 'evil.example');
      expect(res.text).not.toContain('evil.example');
      const etag = res.headers.etag;
      const lastModified = res.headers['last-modified'];
      // The index's tag is a digest of its text; a file's, sent as it is read, of its summary (weak).
      expect(etag).toMatch(path.endsWith('sitemap.xml') ? /^"[A-Za-z0-9_-]{22}"$/ : /^W\/"[A-Za-z0-9_-]{22}"$/);

      expect((await t.http.get(path).set('If-None-Match', etag)).status).toBe(304);
      expect((await t.http.get(path).set('If-Modified-Since', lastModified)).status).toBe(304);
      expect((await t.http.get(path).set('If-Modified-Since', new Date(0).toUTCString())).status).toBe(200);
      const head = await t.http.head(path);
      expect([head.status, head.headers.etag, head.text ?? '']).toEqual([200, etag, '']);
    },
  );

  it.each([
    ['a slug changes', { slug: 'a-new-slug' }],
    ['its blog is made a draft', { status: 'draft' }],
  ])("moves a file's entity tag when %s: the old one no longer answers 304", async (_change, body) => {
    const target = live[live.length - 2];
    const path = `/api/v1/sitemaps/blogs-${Math.floor((target.id - 1) / size) + 1}.xml`;
    const before = await t.http.get(path);
    const patch = await t.http
      .patch(`${BLOGS}/${target.id}`)
      .set('Authorization', admin())
      .set('Content-Type', 'application/merge-patch+json')
      .send(body);
    expect(patch.status).toBe(200);

    const after = await t.http.get(path).set('If-None-Match', before.headers.etag);
    expect([after.status, after.headers.etag === before.headers.etag]).toEqual([200, false]);
    expect(after.text).not.toBe(before.text);
    expect(schemaErrors(after.text, 'sitemap.xsd')).toBe('');
  });

  it('an unknown query parameter does not change the document (paths take none)', async () => {
    const plain = await t.http.get('/api/v1/sitemap.xml');
    const withQuery = await t.http.get('/api/v1/sitemap.xml?x=1');
    expect(withQuery.text).toBe(plain.text);
  });
});

describe('sitemap summary under concurrent writes (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL, SITEMAP_SIZE: '1000' });
  const admin = (): string => bearer(t.token('root', { scope: 'blogs:admin' }));

  /** Block 0 as `sitemap_blocks` sums it, and as its blogs that are not drafts have it. */
  async function blockZero(): Promise<{ summary: Record<string, unknown>; stored: Record<string, unknown> }> {
    const [summary]: Record<string, unknown>[] = await t.dataSource.query(
      'SELECT sum("n")::int AS "n", sum("stale")::int AS "stale", max("updated_at") AS "newest" FROM "sitemap_blocks" WHERE "block" = 0',
    );
    const [stored]: Record<string, unknown>[] = await t.dataSource.query(
      'SELECT count(*)::int AS "n", max("updated_at") AS "newest" FROM "blogs" WHERE "published_at" IS NOT NULL',
    );
    return { summary, stored };
  }

  it('creates, updates, drafts, deletes and folds of one block released together leave its lastmod and count exact', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const seeded: number[] = [];
    for (let i = 0; i < 12; i += 1) seeded.push((await create(t, { title: `R${i}`, content: 'x', author: 'A' })).id);
    const patch = (id: number, body: object) =>
      t.http
        .patch(`${BLOGS}/${id}`)
        .set('Authorization', admin())
        .set('Content-Type', 'application/merge-patch+json')
        .send(body);
    const fold = async (): Promise<void> => {
      await t.dataSource.query('SELECT "sitemap_block_fold"(0)');
    };
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));
    // The newest blog goes: until a fold, the block's summary names its updatedAt.
    const racers = [
      ...Array.from({ length: 8 }, (_, i) => async () => create(t, { title: `N${i}`, content: 'x', author: 'A' })),
      ...seeded.slice(8, 12).map((id) => async () => t.http.delete(`${BLOGS}/${id}`).set('Authorization', admin())),
      ...seeded.slice(0, 4).map((id) => async () => patch(id, { content: 'changed' })),
      ...seeded.slice(4, 6).map((id) => async () => patch(id, { status: 'draft' })),
      ...Array.from({ length: 3 }, () => fold),
    ].map(async (racer) => {
      await go;
      return racer();
    });
    release();
    await Promise.all(racers);

    const index = await t.http.get('/api/v1/sitemap.xml');
    expect(entriesOf(index.text)).toEqual(await expectedIndex(t, 1000));
    const raced = await blockZero();
    expect(raced.summary.n).toBe(raced.stored.n);
    expect(raced.stored.n).toBe(12 + 8 - 4 - 2);
    // Exact once folded; never older than its blogs, and newer only while a removal is not folded.
    expect(new Date(raced.summary.newest as string).getTime()).toBeGreaterThanOrEqual(
      new Date(raced.stored.newest as string).getTime(),
    );
    if (raced.summary.stale === 0) expect(raced.summary.newest).toEqual(raced.stored.newest);

    await fold();
    const folded = await blockZero();
    expect(folded.summary).toEqual({ ...folded.stored, stale: 0 });
    expect(entriesOf((await t.http.get('/api/v1/sitemap.xml')).text)).toEqual(await expectedIndex(t, 1000));
  });

  it('a delete of the newest blog marks its block stale, read from its blogs until the fold, then from the summary', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) ids.push((await create(t, { title: `S${i}`, content: 'x', author: 'A' })).id);
    expect((await t.http.delete(`${BLOGS}/${ids[2]}`).set('Authorization', admin())).status).toBe(204);

    const stale = await blockZero();
    expect([stale.summary.n, stale.summary.stale]).toEqual([2, 1]);
    expect(new Date(stale.summary.newest as string).getTime()).toBeGreaterThan(
      new Date(stale.stored.newest as string).getTime(),
    );
    expect(entriesOf((await t.http.get('/api/v1/sitemap.xml')).text)).toEqual(await expectedIndex(t, 1000));

    // The job's work: each stale block folded, then none left.
    const feeds = t.app.get(FeedsRepository);
    await expect(feeds.foldStaleBlocks()).resolves.toBe(1);
    await expect(feeds.foldStaleBlocks()).resolves.toBe(0);
    const folded = await blockZero();
    expect(folded.summary).toEqual({ ...folded.stored, stale: 0 });
    expect(entriesOf((await t.http.get('/api/v1/sitemap.xml')).text)).toEqual(await expectedIndex(t, 1000));
  });
});

describe('sitemaps across the boundary of ids 1000 and 1001 (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL, SITEMAP_SIZE: '1000' });

  it('puts ids up to 1000 in file 1 and from 1001 in file 2, each dated by its own blogs', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    await t.dataSource.query(`SELECT setval(pg_get_serial_sequence('blogs', 'id'), 996)`);
    const created: { id: number; slug: string }[] = [];
    for (let i = 0; i < 8; i += 1) created.push(await create(t, { title: `Edge ${i}`, content: 'x', author: 'A' }));
    expect(created.map(({ id }) => id)).toEqual([997, 998, 999, 1000, 1001, 1002, 1003, 1004]);

    const index = await t.http.get('/api/v1/sitemap.xml');
    expect(schemaErrors(index.text, 'siteindex.xsd')).toBe('');
    expect(entriesOf(index.text)).toEqual(await expectedIndex(t, 1000));
    expect(entriesOf(index.text).map(({ loc }) => loc)).toEqual([
      `${PUBLIC_URL}/api/v1/sitemaps/blogs-1.xml`,
      `${PUBLIC_URL}/api/v1/sitemaps/blogs-2.xml`,
    ]);
    const second = entriesOf((await t.http.get('/api/v1/sitemaps/blogs-2.xml')).text).map(({ loc }) => loc);
    expect(second).toEqual(created.slice(4).map(({ slug }) => `${PUBLIC_URL}/api/v1/blogs/slug/${slug}`));
  });
});

describe('sitemaps without live blogs (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL });

  it('answers 404 for the index (siteindex.xsd asks for one file at least) and for the first file', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    await create(t, { title: 'Draft', content: 'x', author: 'Alice', status: 'draft' });

    const index = await t.http.get('/api/v1/sitemap.xml');
    expectJsonError(index, 404);
    expect(index.headers['cache-control']).toBe('no-store');
    expectJsonError(await t.http.get('/api/v1/sitemaps/blogs-1.xml'), 404);
    // The same schema refuses the empty index the service does not answer.
    expect(
      schemaErrors(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"/>`, 'siteindex.xsd'),
    ).not.toBe('');
  });

  it('answers the index again, valid, once a blog is published', async () => {
    await create(t, { title: 'First', content: 'x', author: 'Alice' });

    const index = await t.http.get('/api/v1/sitemap.xml');
    expect([index.status, schemaErrors(index.text, 'siteindex.xsd')]).toEqual([200, '']);
  });
});

describe('sitemaps under URLs with characters XML escapes (e2e)', () => {
  const t = useTestApp({
    PUBLIC_URL: "https://api.blog.example/o'neil&co",
    SITE_URL: "https://blog.example/it's&more",
  });

  it.each([
    [
      'the index',
      '/api/v1/sitemap.xml',
      'siteindex.xsd',
      'https://api.blog.example/o&apos;neil&amp;co/api/v1/sitemaps/blogs-1.xml',
    ],
    ['a file', '/api/v1/sitemaps/blogs-1.xml', 'sitemap.xsd', 'https://blog.example/it&apos;s&amp;more/escaped'],
  ] as const)('entity-escapes every <loc> of %s (sitemaps.org: & \' " < >)', async (_name, path, xsd, loc) => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    await create(t, { title: 'Escaped', content: 'x', author: 'Alice' });

    const res = await t.http.get(path);
    expect([res.status, schemaErrors(res.text, xsd)]).toEqual([200, '']);
    expect(entriesOf(res.text).map((entry) => entry.loc)).toEqual([loc]);
  });
});

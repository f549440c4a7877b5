/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { execFileSync } from 'node:child_process';
import Parser from 'rss-parser';
import type { Response } from 'supertest';
import { bearer, BLOGS, expectJsonError, messagesOf } from './support/blog-api';
import { TestApp, useTestApp } from './support/test-app';

// Feeds (contract 1.6): Atom and RSS as a feed reader parses them (rss-parser), JSON Feed as JSON; live blogs only,
// newest first, stable ids, RFC 5005 paging, XML-forbidden characters, conditional requests, caching, bad input.

const PUBLIC_URL = 'https://api.blog.example';
const FEED_SIZE = 3;
const FEEDS = '/api/v1/feeds/blogs';
/** Atom entries carry `id` and `author`; RSS items `creator` (`dc:creator`), as rss-parser reads them. */
const parser = new Parser<Record<string, never>, { id?: string; author?: string; creator?: string }>();

type Format = 'atom' | 'rss' | 'json';
const FORMATS: Format[] = ['atom', 'rss', 'json'];

/** One entry as each format gives it, in the same shape. */
interface Entry {
  id: string;
  title: string;
  link: string;
  published: string;
  author: string;
  content: string;
}

/** Whether `xml` is a well-formed XML document (xmllint, as a consumer's parser would read it). */
function wellFormed(xml: string): boolean {
  try {
    execFileSync('xmllint', ['--noout', '-'], { input: xml, stdio: ['pipe', 'ignore', 'ignore'] });
    return true;
  } catch {
    return false;
  }
}

/** The entries and the `next` URL of a feed document, read as its consumers read it. */
async function read(format: Format, res: Response): Promise<{ entries: Entry[]; next?: string; title: string }> {
  if (format === 'json') {
    const body = JSON.parse(res.text) as {
      title: string;
      next_url?: string;
      items: {
        id: string;
        title: string;
        url: string;
        date_published: string;
        authors: { name: string }[];
        content_text: string;
      }[];
    };
    return {
      title: body.title,
      next: body.next_url,
      entries: body.items.map((item) => ({
        id: item.id,
        title: item.title,
        link: item.url,
        published: new Date(item.date_published).toISOString(),
        author: item.authors[0].name,
        content: item.content_text,
      })),
    };
  }
  expect(wellFormed(res.text)).toBe(true);
  const feed = await parser.parseString(res.text);
  const next = /<(?:atom:)?link rel="next" href="([^"]+)"/.exec(res.text)?.[1]?.replace(/&amp;/g, '&');
  return {
    title: feed.title ?? '',
    next,
    entries: feed.items.map((item) => ({
      id: (format === 'atom' ? item.id : item.guid) as string,
      title: item.title ?? '',
      link: item.link ?? '',
      published: new Date(item.isoDate ?? '').toISOString(),
      author: (format === 'atom' ? item.author : item.creator) ?? '',
      content: (format === 'atom' ? item.content : (item.contentSnippet ?? item.content)) ?? '',
    })),
  };
}

/** Creates a blog through the API with `body` and expects 201; answers its id and slug. */
async function create(t: TestApp, body: Record<string, unknown>): Promise<{ id: number; slug: string }> {
  const res = await t.http
    .post(BLOGS)
    .set('Authorization', bearer(t.token('alice')))
    .send(body);
  expect({ status: res.status, body: res.status === 201 ? undefined : res.body }).toEqual({ status: 201 });
  return res.body as { id: number; slug: string };
}

/** The path of a feed document given by an absolute URL under PUBLIC_URL. */
const pathOf = (url: string): string => {
  expect(url.startsWith(`${PUBLIC_URL}/api/v1/feeds/blogs.`)).toBe(true);
  return url.slice(PUBLIC_URL.length);
};

describe('feeds (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL, FEED_SIZE: String(FEED_SIZE), SITE_TITLE: 'Notes' });

  /** Live blogs by publishedAt: ids in the order the feeds must give them. */
  let live: number[];

  beforeAll(async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const at = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    // Published out of id order, two at the same instant (ties by id, descending).
    const a = await create(t, { title: 'A', content: 'a', author: 'Alice', publishedAt: at(5), tags: ['NestJS'] });
    const b = await create(t, {
      title: 'B',
      content: 'b',
      author: 'Bob',
      publishedAt: at(1),
      tags: ['Databases', 'NestJS'],
    });
    const c = await create(t, { title: 'C', content: 'c', author: 'Alice', publishedAt: at(5) });
    const d = await create(t, { title: 'D', content: 'd', author: 'Bob', publishedAt: at(9) });
    const e = await create(t, { title: 'E', content: 'e', author: 'Alice', publishedAt: at(3), tags: ['NestJS'] });
    await create(t, { title: 'draft', content: 'x', author: 'Alice', status: 'draft', tags: ['Secret'] });
    await create(t, {
      title: 'scheduled',
      content: 'x',
      author: 'Alice',
      status: 'scheduled',
      publishedAt: '2999-01-01T00:00:00Z',
      tags: ['Later On'],
    });
    live = [d.id, c.id, a.id, e.id, b.id];
  });

  /** Every entry of the feed `query` selects, following `next` from the first document. */
  async function walk(format: Format, query = ''): Promise<Entry[]> {
    const entries: Entry[] = [];
    let path: string | undefined = `${FEEDS}.${format}${query}`;
    while (path !== undefined) {
      const res = await t.http.get(path);
      expect(res.status).toBe(200);
      const document = await read(format, res);
      expect(document.entries.length).toBeLessThanOrEqual(FEED_SIZE);
      entries.push(...document.entries);
      path = document.next === undefined ? undefined : pathOf(document.next);
    }
    return entries;
  }

  it.each<[Format, string]>([
    ['atom', 'application/atom+xml; charset=utf-8'],
    ['rss', 'application/rss+xml; charset=utf-8'],
    ['json', 'application/feed+json; charset=utf-8'],
  ])('%s: FEED_SIZE live blogs, newest publishedAt first, ties by id descending, as %s', async (format, type) => {
    const res = await t.http.get(`${FEEDS}.${format}`);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    const { entries, next, title } = await read(format, res);
    expect(title).toBe('Notes');
    expect(entries.map((entry) => entry.id)).toEqual(
      live.slice(0, FEED_SIZE).map((id) => `${PUBLIC_URL}/api/v1/blogs/${id}`),
    );
    expect(next).toMatch(new RegExp(`^${PUBLIC_URL}/api/v1/feeds/blogs\\.${format}\\?cursor=`));
  });

  it.each(FORMATS)(
    '%s: following next gives every live blog once, in order, and no draft or scheduled one',
    async (format) => {
      const entries = await walk(format);

      expect(entries.map((entry) => entry.id)).toEqual(live.map((id) => `${PUBLIC_URL}/api/v1/blogs/${id}`));
      expect(entries.map((entry) => entry.title)).toEqual(['D', 'C', 'A', 'E', 'B']);
    },
  );

  it('gives each entry the same id, link, date, author and text in the three formats', async () => {
    const [atom, rss, json] = await Promise.all(FORMATS.map((format) => walk(format)));

    expect(rss).toEqual(atom);
    expect(json).toEqual(atom);
    expect(atom[0]).toEqual({
      id: `${PUBLIC_URL}/api/v1/blogs/${live[0]}`,
      title: 'D',
      link: `${PUBLIC_URL}/api/v1/blogs/slug/d`,
      published: '2026-01-01T00:09:00.000Z',
      author: 'Bob',
      content: 'd',
    });
  });

  it('writes the fields of the contract in each format: updated, categories with term and label, content as text', async () => {
    const [atom, rss, json] = await Promise.all(FORMATS.map((format) => t.http.get(`${FEEDS}.${format}?author=Bob`)));

    expect(atom.text).toContain(
      '<category term="databases" label="Databases"/><category term="nestjs" label="NestJS"/>',
    );
    expect(atom.text).toContain('<content type="text">b</content>');
    expect(atom.text).toMatch(/<updated>\d{4}-\d\d-\d\dT[\d:.]+Z<\/updated>/);
    expect(rss.text).toContain('<category>Databases</category><category>NestJS</category>');
    expect(rss.text).toContain('<dc:creator>Bob</dc:creator>');
    expect(rss.text).toContain('<guid isPermaLink="false">');
    expect(rss.text).toContain('<pubDate>Thu, 01 Jan 2026 00:01:00 GMT</pubDate>');
    const item = (JSON.parse(json.text) as { items: Record<string, unknown>[] }).items[1];
    expect(item).toEqual({
      id: `${PUBLIC_URL}/api/v1/blogs/${live[4]}`,
      url: `${PUBLIC_URL}/api/v1/blogs/slug/b`,
      title: 'B',
      content_text: 'b',
      date_published: '2026-01-01T00:01:00.000Z',
      date_modified: expect.stringMatching(/Z$/),
      authors: [{ name: 'Bob' }],
      tags: ['Databases', 'NestJS'],
    });
  });

  it.each<[string, string, string, string[]]>([
    ['a tag', '?tag=nestjs', 'Notes: NestJS', ['A', 'E', 'B']],
    ['an author', '?author=Alice', 'Notes: by Alice', ['C', 'A', 'E']],
    ['both', '?tag=nestjs&author=Alice', 'Notes: NestJS by Alice', ['A', 'E']],
    ['an unknown tag', '?tag=unknown', 'Notes: unknown', []],
    // As for an unknown tag: the name of a tag that no live blog has is not shown (`GET /tags/:slug` is 404 for it).
    ["a draft's tag", '?tag=secret', 'Notes: secret', []],
    ["a scheduled blog's tag", '?tag=later-on', 'Notes: later-on', []],
  ])('filters by %s, named in the title, and pages with the same filters', async (_name, query, title, titles) => {
    for (const format of FORMATS) {
      const first = await read(format, await t.http.get(`${FEEDS}.${format}${query}`));
      expect(first.title).toBe(title);
      expect((await walk(format, query)).map((entry) => entry.title)).toEqual(titles);
    }
  });

  it('keeps an entry id when the blog changes title, slug and text; the link follows the slug', async () => {
    const before = (await walk('atom')).find((entry) => entry.title === 'D');
    const patch = await t.http
      .patch(`${BLOGS}/${live[0]}`)
      .set('Authorization', bearer(t.token('alice', { scope: 'blogs:admin' })))
      .set('Content-Type', 'application/merge-patch+json')
      .send({ title: 'D2', slug: 'd-two', content: 'd2' });
    expect(patch.status).toBe(200);

    const after = (await walk('atom')).find((entry) => entry.title === 'D2');
    expect(after?.id).toBe(before?.id);
    expect(after?.link).toBe(`${PUBLIC_URL}/api/v1/blogs/slug/d-two`);
  });

  it('shows the same live blogs to a token that owns drafts, and to an admin token', async () => {
    const anonymous = (await t.http.get(`${FEEDS}.json`)).text;
    for (const token of [t.token('alice'), t.token('root', { scope: 'blogs:admin' })]) {
      const res = await t.http.get(`${FEEDS}.json`).set('Authorization', bearer(token));
      expect(res.status).toBe(200);
      expect(res.text).toBe(anonymous);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('takes no URL from Host, Forwarded or X-Forwarded-* headers', async () => {
    const res = await t.http
      .get(`${FEEDS}.atom`)
      .set('Host', 'evil.example')
      .set('Forwarded', 'host=evil.example;proto=http')
      .set('X-Forwarded-Host', 'evil.example')
      .set('X-Forwarded-Proto', 'http');

    expect(res.status).toBe(200);
    expect(res.text).not.toContain('evil.example');
    expect(res.text).toContain(`href="${PUBLIC_URL}/api/v1/feeds/blogs.atom"`);
  });

  it.each(['/api/v1', '/api', '/v1'])('serves %s/feeds/blogs.atom, public under the key blogs', async (prefix) => {
    const res = await t.http.get(`${prefix}/feeds/blogs.atom`);

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toMatch(/^public, /);
    expect(res.headers['surrogate-key']).toBe('blogs');
    expect(res.headers.vary).toMatch(/Authorization/);
  });

  it.each(FORMATS)(
    '%s: ETag and Last-Modified; a matching If-None-Match or If-Modified-Since is 304; HEAD as GET',
    async (format) => {
      const path = `${FEEDS}.${format}?author=Alice`;
      const res = await t.http.get(path);
      const etag = res.headers.etag;
      const lastModified = res.headers['last-modified'];
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
      expect(new Date(lastModified).toUTCString()).toBe(lastModified);

      expect((await t.http.get(path).set('If-None-Match', etag)).status).toBe(304);
      expect((await t.http.get(path).set('If-None-Match', '"other"')).status).toBe(200);
      expect((await t.http.get(path).set('If-Modified-Since', lastModified)).status).toBe(304);
      expect((await t.http.get(path).set('If-Modified-Since', new Date(0).toUTCString())).status).toBe(200);
      const head = await t.http.head(path);
      expect(head.status).toBe(200);
      expect(head.headers.etag).toBe(etag);
      expect(head.headers['content-type']).toBe(res.headers['content-type']);
      expect(head.text ?? '').toBe('');
    },
  );

  describe('bad input', () => {
    let listCursor: string;
    let atomCursor: string;

    beforeAll(async () => {
      listCursor = (await t.http.get(`${BLOGS}?limit=1`)).body.nextCursor as string;
      const next = (await read('atom', await t.http.get(`${FEEDS}.atom`))).next as string;
      atomCursor = new URL(next).searchParams.get('cursor') as string;
    });

    it.each<[string, () => string, string]>([
      ['an unknown parameter', () => '?limit=1000', 'limit'],
      ['a repeated parameter', () => '?tag=a&tag=b', 'tag'],
      ['a malformed tag', () => '?tag=Not%20A%20Slug', 'tag'],
      ['a tag too long', () => `?tag=${'a'.repeat(51)}`, 'tag'],
      ['an author too long', () => `?author=${'a'.repeat(101)}`, 'author'],
      ['an empty author', () => '?author=', 'author'],
      ['a malformed cursor', () => '?cursor=abc', 'cursor'],
      ['a changed cursor', () => `?cursor=${atomCursor.slice(0, -1)}${atomCursor.endsWith('A') ? 'B' : 'A'}`, 'cursor'],
      ["the blog list's cursor", () => `?cursor=${listCursor}`, 'cursor'],
      ['the cursor of another filter', () => `?author=Alice&cursor=${atomCursor}`, 'cursor'],
    ])('%s is 400 with the JSON problem body naming it', async (_name, query, parameter) => {
      const res = await t.http.get(`${FEEDS}.atom${query()}`);

      expectJsonError(res, 400);
      expect(messagesOf(res).some((message) => message.includes(parameter))).toBe(true);
      expect(res.headers['cache-control']).toBe('no-store');
    });

    it.each<Format>(['rss', 'json'])("the Atom feed's cursor in the %s feed is 400", async (format) => {
      const res = await t.http.get(`${FEEDS}.${format}?cursor=${atomCursor}`);

      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual([
        'cursor was made for another feed: use it with the same format, tag and author',
      ]);
    });
  });

  describe('text that XML 1.0 forbids', () => {
    const CONTROL = 'a\u0001b\uffffc';

    it('a lone surrogate is refused when written (400), so no stored text holds one', async () => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', bearer(t.token('alice')))
        .set('Content-Type', 'application/json')
        .send('{"title":"x\\ud800","content":"y","author":"z"}');

      expectJsonError(res, 400);
    });

    it('U+0001 and U+FFFF are left out of Atom and RSS, which stay well-formed; JSON keeps them escaped', async () => {
      await create(t, { title: `T ${CONTROL}`, content: `C ${CONTROL}`, author: `W ${CONTROL}`, tags: ['Odd'] });

      for (const format of ['atom', 'rss'] as const) {
        const res = await t.http.get(`${FEEDS}.${format}?tag=odd`);
        expect(res.status).toBe(200);
        expect(wellFormed(res.text)).toBe(true);
        const [entry] = (await read(format, res)).entries;
        expect([entry.title, entry.content, entry.author]).toEqual(['T abc', 'C abc', 'W abc']);
      }
      const json = await t.http.get(`${FEEDS}.json?tag=odd`);
      const [item] = (JSON.parse(json.text) as { items: { title: string; content_text: string }[] }).items;
      expect([item.title, item.content_text]).toEqual([`T ${CONTROL}`, `C ${CONTROL}`]);
    });
  });
});

describe('feeds with SITE_URL (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL: 'https://api.blog.example', SITE_URL: 'https://blog.example/posts/' });

  it('links each blog as <SITE_URL>/<slug> and the feed to the site; ids stay under PUBLIC_URL', async () => {
    const created = await create(t, { title: 'Hello', content: 'x', author: 'Alice' });

    const { entries } = await read('atom', await t.http.get(`${FEEDS}.atom`));
    const json = JSON.parse((await t.http.get(`${FEEDS}.json`)).text) as { home_page_url: string; feed_url: string };

    expect(entries).toEqual([expect.objectContaining({ link: 'https://blog.example/posts/hello' })]);
    expect(entries[0].id).toBe(`https://api.blog.example/api/v1/blogs/${created.id}`);
    expect(json).toMatchObject({
      home_page_url: 'https://blog.example/posts',
      feed_url: 'https://api.blog.example/api/v1/feeds/blogs.json',
    });
  });
});

describe('feed paging while blogs are published and deleted (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL, FEED_SIZE: '2' });
  const admin = (): string => bearer(t.token('root', { scope: 'blogs:admin' }));

  it('following next gives every blog live throughout exactly once, in order, and never a deleted one twice', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const at = (minute: number): string => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();
    const seeded: number[] = [];
    for (let i = 0; i < 16; i += 1) {
      // Pairs share an instant, so that ties by id are crossed by the pages too.
      seeded.push(
        (await create(t, { title: `S${i}`, content: 'x', author: 'Alice', publishedAt: at(Math.floor(i / 2)) })).id,
      );
    }
    const deleted = [seeded[3], seeded[8], seeded[12]];
    let release!: () => void;
    const go = new Promise<void>((resolve) => (release = resolve));

    const walking = (async (): Promise<string[]> => {
      await go;
      const titles: string[] = [];
      let path: string | undefined = `${FEEDS}.json`;
      while (path !== undefined) {
        const res = await t.http.get(path);
        expect(res.status).toBe(200);
        const document = await read('json', res);
        titles.push(...document.entries.map((entry) => `${entry.title}@${entry.published}`));
        path = document.next === undefined ? undefined : pathOf(document.next);
      }
      return titles;
    })();
    const racing = (async (): Promise<void> => {
      await go;
      await Promise.all([
        ...deleted.map((id) => t.http.delete(`${BLOGS}/${id}`).set('Authorization', admin())),
        create(t, { title: 'new now', content: 'x', author: 'Alice' }),
        create(t, { title: 'new in the past', content: 'x', author: 'Alice', publishedAt: at(3) }),
      ]);
    })();
    release();
    const [titles] = await Promise.all([walking, racing]);

    const order = titles.map((entry) => {
      const [title, published] = entry.split('@');
      return { title, published };
    });
    // In order (newest publishedAt first), and each blog once.
    const instants = order.map((entry) => entry.published);
    expect([...instants].sort().reverse()).toEqual(instants);
    expect(new Set(order.map((entry) => entry.title)).size).toBe(order.length);
    // Every seeded blog that was never deleted is there.
    const kept = seeded.filter((id) => !deleted.includes(id)).map((id) => `S${id - 1}`);
    expect(order.map((entry) => entry.title)).toEqual(expect.arrayContaining(kept));
    expect(order.filter((entry) => entry.title.startsWith('S')).length).toBeLessThanOrEqual(seeded.length);
  });
});

describe('feed Last-Modified when a scheduled blog goes live (e2e)', () => {
  const t = useTestApp({ PUBLIC_URL });

  it('moves on when a blog its clock publishes joins the feed, so If-Modified-Since alone is not 304', async () => {
    await t.dataSource.query('TRUNCATE blogs RESTART IDENTITY CASCADE');
    const older = await create(t, {
      title: 'Older',
      content: 'x',
      author: 'Alice',
      publishedAt: '2025-06-01T00:00:00Z',
    });
    const later = await create(t, {
      title: 'Later',
      content: 'x',
      author: 'Alice',
      publishedAt: '2025-07-01T00:00:00Z',
    });
    // The scheduled blog was last written before the live one; its instant, not a write, makes it live.
    await t.dataSource.query(`UPDATE "blogs" SET "updated_at" = '2026-01-01T00:00:00Z' WHERE "id" = $1`, [older.id]);
    await t.dataSource.query(
      `UPDATE "blogs" SET "updated_at" = '2025-12-01T00:00:00Z', "published_at" = '2999-01-01T00:00:00Z' WHERE "id" = $1`,
      [later.id],
    );
    const before = await t.http.get(`${FEEDS}.json`);
    expect((await read('json', before)).entries.map((entry) => entry.title)).toEqual(['Older']);
    const lastModified = before.headers['last-modified'];

    await t.dataSource.query(`UPDATE "blogs" SET "published_at" = now() - interval '1 second' WHERE "id" = $1`, [
      later.id,
    ]);
    const after = await t.http.get(`${FEEDS}.json`).set('If-Modified-Since', lastModified);

    expect(after.status).toBe(200);
    expect((await read('json', after)).entries.map((entry) => entry.title)).toEqual(['Later', 'Older']);
    expect(new Date(after.headers['last-modified']).getTime()).toBeGreaterThan(new Date(lastModified).getTime());
  });
});

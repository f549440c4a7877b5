import { BadRequestException, NotFoundException } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CursorSigner } from '../common/paging/cursor-signer';
import { cursorConfig, loadCursorConfig } from '../config/cursor.config';
import { feedsConfig, loadFeedsConfig } from '../config/feeds.config';
import { httpConfig, loadHttpConfig } from '../config/http.config';
import { TagsRepository } from '../tags/tags.repository';
import { FEED_SORT, FeedCursors } from './feed-cursor';
import { FeedBlog, FeedsRepository, SitemapBlog } from './feeds.repository';
import { FeedsService } from './feeds.service';

const NOW = new Date('2026-06-01T00:00:00.000Z');
const PUBLIC_URL = 'https://api.example';

/** A live blog `id`, published `id` minutes into 2026, updated an hour later. */
const blog = (id: number, overrides: Partial<FeedBlog> = {}): FeedBlog => ({
  id,
  title: `T${id}`,
  content: `C${id}`,
  author: 'Alice',
  slug: `t${id}`,
  publishedAt: new Date(Date.UTC(2026, 0, 1, 0, id)),
  updatedAt: new Date(Date.UTC(2026, 0, 1, 1, id)),
  tagSlugs: [],
  ...overrides,
});

describe('FeedsService', () => {
  let service: FeedsService;
  let cursors: FeedCursors;
  const repository = { findPage: jest.fn(), findFile: jest.fn(), findFileSummary: jest.fn(), findFiles: jest.fn() };
  const tags = { names: jest.fn() };

  async function compile(env: Record<string, string> = {}): Promise<void> {
    const moduleRef = await Test.createTestingModule({
      providers: [
        FeedsService,
        FeedCursors,
        CursorSigner,
        { provide: FeedsRepository, useValue: repository },
        { provide: TagsRepository, useValue: tags },
        { provide: cursorConfig.KEY, useValue: loadCursorConfig({ CURSOR_SECRET: 'k'.repeat(32) }) },
        { provide: feedsConfig.KEY, useValue: loadFeedsConfig({ FEED_SIZE: '2', SITEMAP_SIZE: '3', ...env }) },
        { provide: httpConfig.KEY, useValue: loadHttpConfig({ PUBLIC_URL }) },
      ],
    }).compile();
    service = moduleRef.get(FeedsService);
    cursors = moduleRef.get(FeedCursors);
  }

  beforeEach(async () => {
    jest.resetAllMocks();
    tags.names.mockResolvedValue(new Map([['nestjs', 'NestJS']]));
    await compile();
  });

  describe('feed', () => {
    it('reads FEED_SIZE + 1 rows and links the next document only when the extra row came', async () => {
      const tagged = { tagSlugs: ['nestjs'] };
      repository.findPage.mockResolvedValue([blog(3, tagged), blog(2, tagged), blog(1, tagged)]);

      const { body } = await service.feed('json', { tag: 'nestjs' }, NOW);

      expect(repository.findPage).toHaveBeenCalledWith({ tag: 'nestjs', rows: 3, now: NOW }, undefined);
      const feed = JSON.parse(body) as { items: { id: string }[]; next_url: string; title: string };
      expect(feed.title).toBe('Blog: NestJS');
      expect(feed.items.map((item) => item.id)).toEqual([
        `${PUBLIC_URL}/api/v1/blogs/3`,
        `${PUBLIC_URL}/api/v1/blogs/2`,
      ]);
      const next = new URL(feed.next_url);
      expect(next.searchParams.get('tag')).toBe('nestjs');
      const position = cursors.decode(next.searchParams.get('cursor')!, FEED_SORT, { format: 'json', tag: 'nestjs' });
      expect(position).toEqual({ id: 2, value: blog(2).publishedAt });
    });

    it("names a tag no entry has by its slug: a draft's or a scheduled blog's tag is not shown", async () => {
      repository.findPage.mockResolvedValue([]);

      const feed = JSON.parse((await service.feed('json', { tag: 'nestjs' }, NOW)).body) as { title: string };

      expect(feed.title).toBe('Blog: nestjs');
    });

    it('continues after the cursor it made; no next link when no extra row came', async () => {
      const cursor = cursors.encode(FEED_SORT, { format: 'atom', author: 'Bob' }, { id: 9, value: NOW });
      repository.findPage.mockResolvedValue([blog(1, { author: 'Bob' })]);

      const { body } = await service.feed('atom', { author: 'Bob', cursor }, NOW);

      expect(repository.findPage).toHaveBeenCalledWith(
        { author: 'Bob', after: { id: 9, value: NOW }, rows: 3, now: NOW },
        undefined,
      );
      expect(body).not.toContain('rel="next"');
      expect(body).toContain('<title>Blog: by Bob</title>');
    });

    it.each<[string, object]>([
      ['another format', { format: 'rss', author: 'Bob' }],
      ['another author', { format: 'atom', author: 'Eve' }],
      ['a tag added', { format: 'atom', author: 'Bob', tag: 'nestjs' }],
    ])('refuses a cursor of %s before reading', async (_name, selection) => {
      const cursor = cursors.encode(FEED_SORT, selection as never, { id: 9, value: NOW });

      await expect(service.feed('atom', { author: 'Bob', cursor }, NOW)).rejects.toBeInstanceOf(BadRequestException);
      expect(repository.findPage).not.toHaveBeenCalled();
    });

    it('dates the feed by the newest updatedAt of its entries, or now without entries', async () => {
      repository.findPage.mockResolvedValueOnce([blog(1), blog(2, { updatedAt: new Date('2026-03-01T00:00:00Z') })]);
      await expect(service.feed('rss', {}, NOW)).resolves.toMatchObject({
        lastModified: new Date('2026-03-01T00:00:00Z'),
        mediaType: 'application/rss+xml; charset=utf-8',
      });

      repository.findPage.mockResolvedValueOnce([]);
      await expect(service.feed('rss', {}, NOW)).resolves.toMatchObject({ lastModified: NOW });
    });

    it('moves Last-Modified to a publishedAt newer than every updatedAt (a blog its clock published); <updated> stays', async () => {
      const published = new Date('2026-04-01T00:00:00Z');
      repository.findPage.mockResolvedValueOnce([blog(1, { publishedAt: published }), blog(2)]);

      const document = await service.feed('atom', {}, NOW);

      expect(document.lastModified).toEqual(published);
      expect(document.body).toContain(`<updated>${blog(2).updatedAt.toISOString()}</updated><link`);
    });

    it('links blogs to SITE_URL when set, and to the API by slug otherwise', async () => {
      repository.findPage.mockResolvedValue([blog(1)]);
      const api = JSON.parse((await service.feed('json', {}, NOW)).body) as { items: { url: string }[] };
      expect(api.items[0].url).toBe(`${PUBLIC_URL}/api/v1/blogs/slug/t1`);

      await compile({ SITE_URL: 'https://blog.example' });
      const site = JSON.parse((await service.feed('json', {}, NOW)).body) as {
        items: { url: string }[];
        home_page_url: string;
      };
      expect(site.items[0].url).toBe('https://blog.example/t1');
      expect(site.home_page_url).toBe('https://blog.example');
    });
  });

  describe('sitemaps', () => {
    /** What `findFile` yields: `batches`, one at a time. */
    const yielding = (...batches: SitemapBlog[][]) =>
      async function* () {
        yield* batches;
      };
    /** The text of a streamed body. */
    const textOf = async (body: AsyncIterable<string>): Promise<string> => {
      let text = '';
      for await (const part of body) text += part;
      return text;
    };

    it('reads file n as the ids (n - 1) * SITEMAP_SIZE + 1 to n * SITEMAP_SIZE, dated by its summary', async () => {
      repository.findFileSummary.mockResolvedValue({ lastModified: NOW, version: '1.0.7;0' });
      repository.findFile.mockImplementation(yielding([{ id: 4, slug: 'x', updatedAt: NOW.toISOString() }]));

      const { body, lastModified, entityTag } = await service.sitemapFile(2, NOW);

      expect(repository.findFileSummary).toHaveBeenCalledWith(2, 4, 6, 3, NOW);
      expect([lastModified, entityTag]).toEqual([NOW, expect.stringMatching(/^W\/"[A-Za-z0-9_-]{22}"$/)]);
      expect(repository.findFile).not.toHaveBeenCalled();
      expect(await textOf(body)).toContain(`<loc>${PUBLIC_URL}/api/v1/blogs/slug/x</loc>`);
      expect(repository.findFile).toHaveBeenCalledWith(4, 6, NOW, undefined);
    });

    it.each([
      ['the version of its summary rows', { version: '1.0.8;0' }],
      ['its scheduled blogs', { version: '1.0.7;1' }],
      ['its newest updatedAt', { lastModified: new Date(NOW.getTime() + 1) }],
    ])('gives another entity tag when %s moves', async (_moved, change) => {
      const summary = { lastModified: NOW, version: '1.0.7;0' };
      repository.findFileSummary.mockResolvedValueOnce(summary).mockResolvedValueOnce({ ...summary, ...change });

      const before = await service.sitemapFile(2, NOW);
      const after = await service.sitemapFile(2, NOW);

      expect(after.entityTag).not.toBe(before.entityTag);
    });

    it('answers 404 for a file without live blogs, and reads nothing past int4', async () => {
      repository.findFileSummary.mockResolvedValue({ lastModified: undefined, version: ';0' });
      await expect(service.sitemapFile(7, NOW)).rejects.toBeInstanceOf(NotFoundException);

      await expect(service.sitemapFile(2 ** 31, NOW)).rejects.toBeInstanceOf(NotFoundException);
      expect(repository.findFileSummary).toHaveBeenCalledTimes(1);
    });

    it('answers 404 from the body when the blogs went between the summary and the first batch', async () => {
      repository.findFileSummary.mockResolvedValue({ lastModified: NOW, version: '1.0.7;0' });
      repository.findFile.mockImplementation(yielding());

      const { body } = await service.sitemapFile(2, NOW);

      await expect(textOf(body)).rejects.toBeInstanceOf(NotFoundException);
    });

    it('answers 404 for the index when no file holds a live blog (an index names one file at least)', async () => {
      repository.findFiles.mockResolvedValue([]);

      await expect(service.sitemapIndex(NOW)).rejects.toBeInstanceOf(NotFoundException);
    });

    it('lists the files the repository found, under PUBLIC_URL, dated by the newest', async () => {
      const older = new Date('2026-01-01T00:00:00Z');
      repository.findFiles.mockResolvedValue([
        { file: 1, lastModified: NOW },
        { file: 3, lastModified: older },
      ]);

      const { body, lastModified } = await service.sitemapIndex(new Date('2027-01-01T00:00:00Z'));

      expect(repository.findFiles).toHaveBeenCalledWith(3, new Date('2027-01-01T00:00:00Z'));
      expect(body).toContain(`<loc>${PUBLIC_URL}/api/v1/sitemaps/blogs-1.xml</loc>`);
      expect(body).toContain(
        `<loc>${PUBLIC_URL}/api/v1/sitemaps/blogs-3.xml</loc><lastmod>2026-01-01T00:00:00.000Z</lastmod>`,
      );
      expect(lastModified).toEqual(NOW);
    });
  });
});

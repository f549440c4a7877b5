import { Inject, Injectable, NotFoundException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { BLOGS_PATH } from '../blogs/blog-paths';
import { INT4_MAX } from '../common/canonical-integer';
import { feedsConfig } from '../config/feeds.config';
import { httpConfig } from '../config/http.config';
import { TagsRepository } from '../tags/tags.repository';
import { FEED_SORT, FeedCursors, FeedSelection } from './feed-cursor';
import { FeedDocument, FeedFormat, FEED_MEDIA_TYPES, renderFeed } from './feed-formats';
import { FeedBlog, FeedsRepository, SitemapBlog } from './feeds.repository';
import { weakEntityTag } from './public-document';
import { renderSitemapIndex, renderUrlSet, SITEMAP_MEDIA_TYPE } from './sitemap-documents';

/** The 404 of sitemap file `n`, which holds no live blog. */
const sitemapFileNotFound = (n: number): NotFoundException =>
  new NotFoundException(`Sitemap file ${n} not found: it holds no live blog`);

/** Path of the feeds, without the format's extension (`.atom`, `.rss`, `.json`). */
export const FEEDS_PATH = '/api/v1/feeds/blogs';

/** Path of the sitemap index. */
export const SITEMAP_INDEX_PATH = '/api/v1/sitemap.xml';

/** Path of sitemap file `n`. */
export const sitemapFilePath = (n: number): string => `/api/v1/sitemaps/blogs-${n}.xml`;

/** A public document as answered: its text, `Content-Type` and `Last-Modified` instant. */
export interface PublicDocument {
  readonly body: string;
  readonly mediaType: string;
  readonly lastModified: Date;
}

/**
 * A public document written in parts as it is read: its `ETag` and `Last-Modified` come from a summary read before it,
 * and every change to what it lists moves the tag (docs/api.md, "Feeds and sitemaps").
 */
export interface StreamedDocument {
  readonly body: AsyncIterable<string>;
  readonly mediaType: string;
  readonly lastModified: Date;
  readonly entityTag: string;
}

/** What a feed document is asked for: the filters and where it starts (a `cursor` of an earlier one). */
export interface FeedRequest {
  readonly tag?: string;
  readonly author?: string;
  readonly cursor?: string;
}

/**
 * Feeds (Atom, RSS, JSON Feed) and sitemaps of the live blogs, whatever the caller (docs/api.md, "Feeds and
 * sitemaps"). Every URL they hold is made from `PUBLIC_URL` and `SITE_URL`, never from the request.
 */
@Injectable()
export class FeedsService {
  private readonly publicUrl: string;

  constructor(
    private readonly feeds: FeedsRepository,
    private readonly cursors: FeedCursors,
    private readonly tags: TagsRepository,
    @Inject(feedsConfig.KEY) private readonly config: ConfigType<typeof feedsConfig>,
    @Inject(httpConfig.KEY) http: ConfigType<typeof httpConfig>,
  ) {
    this.publicUrl = http.publicUrl;
  }

  /**
   * The feed document of `format` that `request` selects at `now`: `FEED_SIZE` live blogs, newest `publishedAt` first.
   * @throws BadRequestException naming `cursor` when it is not a cursor of this feed (format, tag and author).
   */
  async feed(format: FeedFormat, request: FeedRequest, now: Date, client?: string): Promise<PublicDocument> {
    const { tag, author, cursor } = request;
    const selection: FeedSelection = { format, tag, author };
    const after = cursor === undefined ? undefined : this.cursors.decode(cursor, FEED_SORT, selection);
    const size = this.config.feedSize;
    const rows = await this.feeds.findPage({ tag, author, after, rows: size + 1, now }, client);
    const blogs = rows.slice(0, size);
    const names = await this.tags.names(blogs.flatMap((blog) => blog.tagSlugs));
    const last = blogs.at(-1);
    const next =
      rows.length > size && last !== undefined
        ? this.cursors.encode(FEED_SORT, selection, { id: last.id, value: last.publishedAt })
        : undefined;
    const updated = blogs.reduce<Date | undefined>(
      (newest, blog) => (newest === undefined || blog.updatedAt > newest ? blog.updatedAt : newest),
      undefined,
    );
    const document: FeedDocument = {
      title: this.feedTitle(tag === undefined ? undefined : this.tagName(tag, blogs, names), author),
      feedId: this.feedUrl(format, { tag, author }),
      selfUrl: this.feedUrl(format, request),
      siteUrl: this.config.siteUrl ?? this.publicUrl,
      ...(next === undefined ? {} : { nextUrl: this.feedUrl(format, { tag, author, cursor: next }) }),
      updated: updated ?? now,
      entries: blogs.map((blog) => ({
        id: this.entryId(blog),
        title: blog.title,
        link: this.blogLink(blog),
        publishedAt: blog.publishedAt,
        updatedAt: blog.updatedAt,
        author: blog.author,
        tags: blog.tagSlugs.map((slug) => ({ slug, name: names.get(slug) ?? slug })),
        content: blog.content,
      })),
    };
    // A blog its clock publishes joins the feed at its `publishedAt`, with no write that moves its `updatedAt`.
    const changed = blogs.reduce<Date | undefined>(
      (newest, { publishedAt }) => (newest === undefined || publishedAt > newest ? publishedAt : newest),
      updated,
    );
    return { body: renderFeed(format, document), mediaType: FEED_MEDIA_TYPES[format], lastModified: changed ?? now };
  }

  /**
   * The sitemap index at `now`: each file that holds live blogs, with the newest `updatedAt` of its blogs.
   * @throws NotFoundException when no file holds a live blog: an index names one file at least (siteindex.xsd).
   */
  async sitemapIndex(now: Date): Promise<PublicDocument> {
    const files = await this.feeds.findFiles(this.config.sitemapSize, now);
    if (files.length === 0) throw new NotFoundException('Sitemap index not found: no file holds a live blog');
    const entries = files.map(({ file, lastModified }) => ({
      loc: `${this.publicUrl}${sitemapFilePath(file)}`,
      lastModified,
    }));
    const newest = entries.reduce((max, { lastModified }) => (lastModified > max ? lastModified : max), new Date(0));
    return { body: renderSitemapIndex(entries), mediaType: SITEMAP_MEDIA_TYPE, lastModified: newest };
  }

  /**
   * Sitemap file `n` at `now`: the live blogs with ids `(n - 1) * SITEMAP_SIZE + 1` to `n * SITEMAP_SIZE`, by id, read
   * and written in batches as the body is sent.
   * @throws NotFoundException when it holds no live blog (past the last file, or none in its range); from the body
   *   when its blogs went between the summary and the first batch.
   */
  async sitemapFile(n: number, now: Date, client?: string): Promise<StreamedDocument> {
    const size = this.config.sitemapSize;
    const first = (n - 1) * size + 1;
    const last = Math.min(n * size, INT4_MAX);
    const summary = first > INT4_MAX ? undefined : await this.feeds.findFileSummary(n, first, last, size, now);
    const lastModified = summary?.lastModified;
    if (summary === undefined || lastModified === undefined) throw sitemapFileNotFound(n);
    const identity = [n, size, this.publicUrl, this.config.siteUrl ?? '', summary.version, lastModified.toISOString()];
    return {
      body: renderUrlSet(this.sitemapBatches(n, first, last, now, client), (blog) => this.blogLink(blog)),
      mediaType: SITEMAP_MEDIA_TYPE,
      lastModified,
      entityTag: weakEntityTag(identity.join('\n')),
    };
  }

  /**
   * The name of the feed's `tag` as its entries (which all have it) give it; without entries its slug, as for an unknown
   * tag: a tag that only drafts or scheduled blogs have is not shown (`GET /tags/:slug` is 404 for it too).
   */
  private tagName(tag: string, entries: readonly FeedBlog[], names: ReadonlyMap<string, string>): string {
    return entries.some((blog) => blog.tagSlugs.includes(tag)) ? (names.get(tag) ?? tag) : tag;
  }

  /** The batches of sitemap file `n`'s live blogs; a file whose first batch is empty is not found. */
  private async *sitemapBatches(
    n: number,
    first: number,
    last: number,
    now: Date,
    client?: string,
  ): AsyncGenerator<SitemapBlog[]> {
    let none = true;
    for await (const batch of this.feeds.findFile(first, last, now, client)) {
      none = false;
      yield batch;
    }
    if (none) throw sitemapFileNotFound(n);
  }

  /** `SITE_TITLE`, then the tag's name and the author when the feed is filtered: `Blog: NestJS by Alice`. */
  private feedTitle(tagName: string | undefined, author: string | undefined): string {
    const filter = [tagName, author === undefined ? undefined : `by ${author}`].filter((part) => part !== undefined);
    return filter.length === 0 ? this.config.siteTitle : `${this.config.siteTitle}: ${filter.join(' ')}`;
  }

  /** The absolute URL of the feed document of `format` with these parameters. */
  private feedUrl(format: FeedFormat, { tag, author, cursor }: FeedRequest): string {
    const query = new URLSearchParams();
    if (tag !== undefined) query.set('tag', tag);
    if (author !== undefined) query.set('author', author);
    if (cursor !== undefined) query.set('cursor', cursor);
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return `${this.publicUrl}${FEEDS_PATH}.${format}${search}`;
  }

  /** An entry's stable id: the blog's URL by id, which no change of title, slug or text alters. */
  private entryId(blog: Pick<FeedBlog, 'id'>): string {
    return `${this.publicUrl}${BLOGS_PATH}/${blog.id}`;
  }

  /** A blog's link: `<SITE_URL>/<slug>`, else `<PUBLIC_URL>/api/v1/blogs/slug/<slug>`. */
  private blogLink(blog: Pick<FeedBlog, 'slug'>): string {
    const slug = encodeURIComponent(blog.slug);
    return this.config.siteUrl === undefined
      ? `${this.publicUrl}${BLOGS_PATH}/slug/${slug}`
      : `${this.config.siteUrl}/${slug}`;
  }
}

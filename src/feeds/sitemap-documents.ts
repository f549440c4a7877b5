import { xmlDocument, xmlText } from './feed-formats';
import type { SitemapBlog } from './feeds.repository';

/** The sitemaps.org 0.9 namespace of `<urlset>` and `<sitemapindex>`. */
const SITEMAP = 'http://www.sitemaps.org/schemas/sitemap/0.9';

/** `Content-Type` of sitemaps and sitemap indexes. */
export const SITEMAP_MEDIA_TYPE = 'application/xml; charset=utf-8';

/** A URL of a sitemap or of a sitemap index, and when what it names last changed. */
export interface SitemapEntry {
  readonly loc: string;
  readonly lastModified: Date;
}

/** What a `<url>` or a `<sitemap>` holds: an entity-escaped location and a W3C datetime. */
interface SitemapItem {
  readonly loc: string;
  readonly lastmod: string;
}

/** A `<urlset>` (`root` `urlset`, elements `url`) or a `<sitemapindex>` (`sitemapindex`, `sitemap`) of `items`. */
const sitemapXml = (root: string, element: string, items: readonly SitemapItem[]): string =>
  xmlDocument({ [root]: { '@_xmlns': SITEMAP, [element]: items } });

/** The `<urlset>` of `blogs`, each at `linkOf(blog)`, with its `updatedAt` as it came (UTC). */
export function renderUrlSet(blogs: readonly SitemapBlog[], linkOf: (blog: SitemapBlog) => string): string {
  return sitemapXml(
    'urlset',
    'url',
    blogs.map((blog) => ({ loc: xmlText(linkOf(blog)), lastmod: blog.updatedAt })),
  );
}

/** The `<sitemapindex>` of `files`; W3C datetimes in UTC. */
export function renderSitemapIndex(files: readonly SitemapEntry[]): string {
  return sitemapXml(
    'sitemapindex',
    'sitemap',
    files.map(({ loc, lastModified }) => ({ loc: xmlText(loc), lastmod: lastModified.toISOString() })),
  );
}

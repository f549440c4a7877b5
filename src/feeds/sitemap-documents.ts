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

/**
 * A `<urlset>` (`root` `urlset`, elements `url`) or a `<sitemapindex>` (`sitemapindex`, `sitemap`) of `entries`, the
 * locations entity-escaped; W3C datetimes in UTC.
 */
function sitemapXml(root: string, element: string, entries: readonly SitemapEntry[]): string {
  const items = entries.map(({ loc, lastModified }) => ({ loc: xmlText(loc), lastmod: lastModified.toISOString() }));
  return xmlDocument({ [root]: { '@_xmlns': SITEMAP, [element]: items } });
}

/** The `<urlset>` of `blogs`, each at `linkOf(blog)`. */
export function renderUrlSet(blogs: readonly SitemapBlog[], linkOf: (blog: SitemapBlog) => string): string {
  return sitemapXml(
    'urlset',
    'url',
    blogs.map((blog) => ({ loc: linkOf(blog), lastModified: blog.updatedAt })),
  );
}

/** The `<sitemapindex>` of `files`. */
export function renderSitemapIndex(files: readonly SitemapEntry[]): string {
  return sitemapXml('sitemapindex', 'sitemap', files);
}

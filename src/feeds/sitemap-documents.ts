import { createCB } from 'xmlbuilder2';
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
 * A `<urlset>` (`root` `urlset`, elements `url`) or a `<sitemapindex>` (`sitemapindex`, `sitemap`) of `entries`,
 * written as a stream of chunks (no document tree: 50,000 URLs take their text and no more); W3C datetimes in UTC.
 */
function sitemapXml(root: string, element: string, entries: Iterable<SitemapEntry>): string {
  const chunks: string[] = [];
  const xml = createCB({ data: (chunk: string) => chunks.push(chunk), prettyPrint: false });
  xml.dec({ version: '1.0', encoding: 'UTF-8' }).ele(SITEMAP, root);
  for (const { loc, lastModified } of entries) {
    xml.ele(element).ele('loc').txt(loc).up().ele('lastmod').txt(lastModified.toISOString()).up().up();
  }
  xml.up().end();
  return chunks.join('');
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

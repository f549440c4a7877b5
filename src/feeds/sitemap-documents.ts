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

/** Where a `<urlset>`'s elements go in the document the builder writes around them. */
const CONTENT = '\u0000';

/** The declaration and `<urlset>` start tag, and the end tag, as the builder writes them. */
const [URLSET_START, URLSET_END] = xmlDocument({ urlset: { '@_xmlns': SITEMAP, '#text': CONTENT } }).split(CONTENT);

/**
 * The `<urlset>` of the batches of blogs `batches` yields, in parts as they come: each blog at `linkOf(blog)`, with its
 * `updatedAt` as it came (UTC). The builder writes the document around them; each `<url>` of two escaped values is
 * written here, 5× faster than by the builder (docs/performance.md, "Feeds and sitemaps").
 */
export async function* renderUrlSet(
  batches: AsyncIterable<readonly SitemapBlog[]>,
  linkOf: (blog: SitemapBlog) => string,
): AsyncGenerator<string> {
  let part = URLSET_START;
  for await (const blogs of batches) {
    for (const blog of blogs)
      part += `<url><loc>${xmlText(linkOf(blog))}</loc><lastmod>${blog.updatedAt}</lastmod></url>`;
    yield part;
    part = '';
  }
  yield part + URLSET_END;
}

/** The `<sitemapindex>` of `files`; W3C datetimes in UTC. */
export function renderSitemapIndex(files: readonly SitemapEntry[]): string {
  return sitemapXml(
    'sitemapindex',
    'sitemap',
    files.map(({ loc, lastModified }) => ({ loc: xmlText(loc), lastmod: lastModified.toISOString() })),
  );
}

import { FeedDocument, renderFeed, xmlText } from './feed-formats';
import { renderSitemapIndex, renderUrlSet } from './sitemap-documents';
import type { SitemapBlog } from './feeds.repository';

/** Characters XML 1.0 forbids, a lone surrogate among them, and a pair that is one character (U+1F600). */
const FORBIDDEN = 'a\u0001b\u000bc\u001fd\ufffee\uffffg\ud800h\udc00i';
const KEPT = 'abcdeghi';

const DOCUMENT: FeedDocument = {
  title: `Blog ${FORBIDDEN}`,
  feedId: 'https://api.example/api/v1/feeds/blogs.atom',
  selfUrl: 'https://api.example/api/v1/feeds/blogs.atom?tag=a&author=b',
  siteUrl: 'https://blog.example',
  nextUrl: 'https://api.example/api/v1/feeds/blogs.atom?tag=a&author=b&cursor=x.y',
  updated: new Date('2026-11-29T07:30:00.123Z'),
  entries: [
    {
      id: 'https://api.example/api/v1/blogs/7',
      title: `T <&> ${FORBIDDEN} \u{1f600}`,
      link: 'https://blog.example/hello',
      publishedAt: new Date('2026-11-28T10:00:00.000Z'),
      updatedAt: new Date('2026-11-29T07:30:00.123Z'),
      author: `A ${FORBIDDEN}`,
      tags: [{ slug: 'nestjs', name: `Nest ${FORBIDDEN}` }],
      content: `C ${FORBIDDEN}\ttab\nline`,
    },
  ],
};

describe('renderFeed', () => {
  it.each(['atom', 'rss'] as const)(
    '%s: leaves out what XML 1.0 forbids, escapes the rest, keeps tab and line ends',
    (format) => {
      const xml = renderFeed(format, DOCUMENT);

      const forbidden = [...xml].filter(
        (c) => (/\p{Cc}/u.test(c) && !'\t\n\r'.includes(c)) || /[\ufffe\uffff]/.test(c),
      );
      expect(forbidden).toEqual([]);
      expect(xml.isWellFormed()).toBe(true);
      expect(xml).toContain(`T &lt;&amp;&gt; ${KEPT} \u{1f600}`);
      expect(xml).toContain(`C ${KEPT}\ttab\nline`);
      expect(xml).toContain('tag=a&amp;author=b&amp;cursor=x.y');
    },
  );

  it('atom: entry id, published, updated, author name, category term and label, text content, next link', () => {
    const xml = renderFeed('atom', DOCUMENT);

    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
    expect(xml).toContain('<id>https://api.example/api/v1/blogs/7</id>');
    expect(xml).toContain('<published>2026-11-28T10:00:00.000Z</published><updated>2026-11-29T07:30:00.123Z</updated>');
    expect(xml).toContain(`<author><name>A ${KEPT}</name></author>`);
    expect(xml).toContain(`<category term="nestjs" label="Nest ${KEPT}"/>`);
    expect(xml).toContain('<content type="text">');
    expect(xml).toContain(
      '<link rel="next" href="https://api.example/api/v1/feeds/blogs.atom?tag=a&amp;author=b&amp;cursor=x.y"/>',
    );
  });

  it('rss: guid that is no permalink, RFC 822 pubDate, dc:creator, category, description, atom:link next', () => {
    const xml = renderFeed('rss', DOCUMENT);

    expect(xml).toContain(
      '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:dc="http://purl.org/dc/elements/1.1/">',
    );
    expect(xml).toContain('<guid isPermaLink="false">https://api.example/api/v1/blogs/7</guid>');
    expect(xml).toContain('<pubDate>Sat, 28 Nov 2026 10:00:00 GMT</pubDate>');
    expect(xml).toContain(`<dc:creator>A ${KEPT}</dc:creator><category>Nest ${KEPT}</category><description>C ${KEPT}`);
    expect(xml).toContain(
      '<atom:link rel="next" href="https://api.example/api/v1/feeds/blogs.atom?tag=a&amp;author=b&amp;cursor=x.y"/>',
    );
  });

  it('json: JSON Feed 1.1 members, every character kept as JSON escapes it', () => {
    const feed = JSON.parse(renderFeed('json', DOCUMENT)) as Record<string, unknown>;

    expect(feed).toEqual({
      version: 'https://jsonfeed.org/version/1.1',
      title: `Blog ${FORBIDDEN}`,
      home_page_url: 'https://blog.example',
      feed_url: DOCUMENT.selfUrl,
      next_url: DOCUMENT.nextUrl,
      items: [
        {
          id: 'https://api.example/api/v1/blogs/7',
          url: 'https://blog.example/hello',
          title: DOCUMENT.entries[0].title,
          content_text: DOCUMENT.entries[0].content,
          date_published: '2026-11-28T10:00:00.000Z',
          date_modified: '2026-11-29T07:30:00.123Z',
          authors: [{ name: `A ${FORBIDDEN}` }],
          tags: [`Nest ${FORBIDDEN}`],
        },
      ],
    });
  });

  it('has no next link on the last document', () => {
    const last = { ...DOCUMENT, nextUrl: undefined };

    expect(renderFeed('atom', last)).not.toContain('rel="next"');
    expect(renderFeed('rss', last)).not.toContain('rel="next"');
    expect(JSON.parse(renderFeed('json', last))).not.toHaveProperty('next_url');
  });
});

describe('xmlText', () => {
  it.each<[string, string, string]>([
    ['C0 controls but tab and line ends', 'a\u0000b\u0001c\u001fd\te\nf\rg', 'abcd\te\nf\rg'],
    ['U+FFFE and U+FFFF, keeping U+FFFD', 'a\ufffeb\uffffc\ufffd', 'abc\ufffd'],
    ['lone surrogates, keeping pairs', 'a\ud800b\udc00c\u{1f600}', 'abc\u{1f600}'],
    ['nothing of U+007F–U+009F, which XML 1.0 allows', 'a\u007fb\u0085c\u009f', 'a\u007fb\u0085c\u009f'],
    [
      'markup as references',
      `<a href="x" title='y'>&</a>`,
      '&lt;a href=&quot;x&quot; title=&apos;y&apos;&gt;&amp;&lt;/a&gt;',
    ],
  ])('leaves out %s', (_name, text, expected) => {
    expect(xmlText(text)).toBe(expected);
  });

  it('gives back the very string when there is nothing to change', () => {
    const text = 'plain text, 60 words or so';

    expect(xmlText(text)).toBe(text);
  });
});

describe('sitemaps', () => {
  /** The parts `renderUrlSet` writes of `batches`. */
  async function parts(batches: SitemapBlog[][]): Promise<string[]> {
    const written: string[] = [];
    for await (const part of renderUrlSet(
      (async function* () {
        yield* batches;
      })(),
      (blog) => `https://x.example/${blog.slug}?b&c`,
    ))
      written.push(part);
    return written;
  }

  it('writes a urlset of entity-escaped locations with W3C datetimes, a part per batch', async () => {
    const at = '2026-11-29T07:30:00.123Z';
    const written = await parts([[{ id: 1, slug: 'a', updatedAt: at }], [{ id: 2, slug: 'b', updatedAt: at }]]);

    expect(written).toEqual([
      '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        `<url><loc>https://x.example/a?b&amp;c</loc><lastmod>${at}</lastmod></url>`,
      `<url><loc>https://x.example/b?b&amp;c</loc><lastmod>${at}</lastmod></url>`,
      '</urlset>',
    ]);
  });

  it('writes a sitemap index', () => {
    const files = [{ loc: 'https://x.example/s-1.xml', lastModified: new Date('2026-11-29T07:30:00.123Z') }];

    expect(renderSitemapIndex(files)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        '<sitemap><loc>https://x.example/s-1.xml</loc><lastmod>2026-11-29T07:30:00.123Z</lastmod></sitemap></sitemapindex>',
    );
  });
});

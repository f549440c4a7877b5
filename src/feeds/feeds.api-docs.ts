import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiTags } from '@nestjs/swagger';
import { defineApiErrorResponses } from '../openapi/api-error-responses.decorator';
import { ApiDocumentRead, ApiPublicOperation } from '../openapi/operations';
import { READ_ACCESS_NOTE } from '../openapi/read-access';
import { FEED_MEDIA_TYPES, FeedFormat } from './feed-formats';
import { SITEMAP_MEDIA_TYPE } from './sitemap-documents';

/** The error answers of feeds and sitemaps: the shared ones and a sitemap file's 404. */
const ApiErrorResponses = defineApiErrorResponses({
  404: {
    description: 'No sitemap file of this number holds a live blog (past the last one).',
    example: 'Sitemap file 7 not found: it holds no live blog',
  },
});

/** What each feed format is, for its operation. */
const FORMAT_NAMES: Readonly<Record<FeedFormat, string>> = {
  atom: 'Atom 1.0 (RFC 4287)',
  rss: 'RSS 2.0',
  json: 'JSON Feed 1.1',
};

/** The `next` link of each format (RFC 5005 §3). */
const NEXT_LINKS: Readonly<Record<FeedFormat, string>> = {
  atom: '`<link rel="next">`',
  rss: '`<atom:link rel="next">`',
  json: '`next_url`',
};

/** A feed or sitemap document in `mediaType`: 200 or 304, public under `blogs`, `Last-Modified` its blogs' newest update. */
const ApiBlogsDocument = (mediaType: string, noun: string, example: string): MethodDecorator =>
  ApiDocumentRead(mediaType, noun, example, {
    keys: 'blogs',
    lastModified: `The newest \`updatedAt\` of the ${noun}'s blogs`,
  });

/** The entry that every feed example shows. */
const FEED_EXAMPLES: Readonly<Record<FeedFormat, string>> = {
  atom:
    '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom"><id>https://api.blog.example/api/v1/feeds/blogs.atom</id>' +
    '<title>Blog</title>…<entry><id>https://api.blog.example/api/v1/blogs/1</id><title type="text">Hello</title>…</entry></feed>',
  rss:
    '<?xml version="1.0" encoding="UTF-8"?><rss version="2.0" …><channel><title>Blog</title>…<item>' +
    '<guid isPermaLink="false">https://api.blog.example/api/v1/blogs/1</guid>…</item></channel></rss>',
  json: '{"version":"https://jsonfeed.org/version/1.1","title":"Blog",…,"items":[{"id":"https://api.blog.example/api/v1/blogs/1",…}]}',
};

/** OpenAPI of the feeds controller as a whole. */
export const ApiFeeds = (): ClassDecorator => ApiTags('feeds');

/** OpenAPI of `GET /api/v1/feeds/blogs.<format>`. */
export const ApiFeed = (format: FeedFormat): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: `${format}Feed`,
      summary: `The live blogs as ${FORMAT_NAMES[format]}, newest first`,
      description:
        '`FEED_SIZE` live blogs (whatever the token: never drafts or scheduled ones), newest `publishedAt` first, ' +
        `ties by id; filtered by \`tag\`, \`author\` or both. When older entries follow, ${NEXT_LINKS[format]} ` +
        'links to the next document (RFC 5005 §3), with the same filters and a keyset `cursor`. An unknown, repeated ' +
        'or malformed parameter, or a cursor of another feed or list, is 400 with a JSON problem body. ' +
        READ_ACCESS_NOTE,
    }),
    ApiBlogsDocument(FEED_MEDIA_TYPES[format], 'feed document', FEED_EXAMPLES[format]),
    ApiErrorResponses(400, 401, 429, 503),
  );

/** OpenAPI of the sitemaps controller as a whole. */
export const ApiSitemaps = (): ClassDecorator => ApiTags('sitemaps');

/** OpenAPI of `GET /api/v1/sitemap.xml`. */
export const ApiSitemapIndex = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'sitemapIndex',
      summary: 'The sitemap index (sitemaps.org 0.9) of the blog sitemap files',
      description:
        'Lists `/api/v1/sitemaps/blogs-<n>.xml` for each file that holds live blogs, under `PUBLIC_URL`, each with the ' +
        `newest \`updatedAt\` of its blogs; 404 while no file does. ${READ_ACCESS_NOTE}`,
    }),
    ApiBlogsDocument(
      SITEMAP_MEDIA_TYPE,
      'sitemap index',
      '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
        '<sitemap><loc>https://api.blog.example/api/v1/sitemaps/blogs-1.xml</loc><lastmod>2026-11-29T07:30:00.000Z</lastmod></sitemap></sitemapindex>',
    ),
    ApiErrorResponses(401, 404, 429, 503),
  );

/** OpenAPI of `GET /api/v1/sitemaps/blogs-{n}.xml`. */
export const ApiSitemapFile = (): MethodDecorator =>
  applyDecorators(
    ApiPublicOperation({
      operationId: 'sitemapFile',
      summary: 'One sitemap file (sitemaps.org 0.9) of live blogs, by id',
      description:
        'File `n` holds the live blogs with ids `(n - 1) × SITEMAP_SIZE + 1` to `n × SITEMAP_SIZE`, by id: each ' +
        `blog's link and \`updatedAt\`. Every live blog is in exactly one file. ${READ_ACCESS_NOTE}`,
    }),
    ApiParam({
      name: 'n',
      description: 'The file number, from 1: decimal digits, no sign or leading zero.',
      schema: { type: 'integer', minimum: 1, example: 1 },
    }),
    ApiBlogsDocument(
      SITEMAP_MEDIA_TYPE,
      'sitemap file',
      '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url>' +
        '<loc>https://api.blog.example/api/v1/blogs/slug/hello</loc><lastmod>2026-11-29T07:30:00.000Z</lastmod></url></urlset>',
    ),
    ApiErrorResponses(401, 404, 429, 503),
  );

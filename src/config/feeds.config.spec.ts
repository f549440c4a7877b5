import { loadFeedsConfig } from './feeds.config';

describe('loadFeedsConfig', () => {
  it('defaults: no website, title Blog, 20 entries per feed, 50,000 URLs per sitemap file', () => {
    expect(loadFeedsConfig({})).toEqual({ siteTitle: 'Blog', feedSize: 20, sitemapSize: 50_000 });
  });

  it('takes the website without its trailing slash, the title and the sizes', () => {
    const env = { SITE_URL: 'https://blog.example/posts/', SITE_TITLE: 'Notes', FEED_SIZE: '100', SITEMAP_SIZE: '1' };

    expect(loadFeedsConfig(env)).toEqual({
      siteUrl: 'https://blog.example/posts',
      siteTitle: 'Notes',
      feedSize: 100,
      sitemapSize: 1,
    });
  });

  it.each([
    ['SITE_URL', 'blog.example', /SITE_URL must be an absolute http/],
    ['SITE_URL', 'https://blog.example/?x=1', /SITE_URL must be an absolute http/],
    ['SITE_URL', 'https://user:pw@blog.example', /SITE_URL must be an absolute http/],
    ['SITE_TITLE', '', /SITE_TITLE must be 1 to 200 characters/],
    ['SITE_TITLE', 'a\u0001b', /SITE_TITLE must be 1 to 200 characters/],
    ['SITE_TITLE', 'x'.repeat(201), /SITE_TITLE must be 1 to 200 characters/],
    ['FEED_SIZE', '0', /FEED_SIZE must be an integer between 1 and 100/],
    ['FEED_SIZE', '101', /FEED_SIZE must be an integer between 1 and 100/],
    ['SITEMAP_SIZE', '50001', /SITEMAP_SIZE must be an integer between 1 and 50000/],
    ['SITEMAP_SIZE', '1e3', /SITEMAP_SIZE must be an integer between 1 and 50000/],
  ])('%s=%p is refused with one line naming it', (name, value, message) => {
    expect(() => loadFeedsConfig({ [name]: value })).toThrow(message);
  });
});

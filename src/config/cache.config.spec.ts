import { loadCacheConfig } from './cache.config';

describe('loadCacheConfig', () => {
  it('defaults: browsers keep nothing, shared caches a day, nothing is purged', () => {
    expect(loadCacheConfig({})).toEqual({ maxAge: 0, sharedMaxAge: 86_400, purgeUrls: [] });
  });

  it('writes each purge URL as the URL parser does, once', () => {
    const { purgeUrls } = loadCacheConfig({
      CACHE_PURGE_URLS: 'http://varnish:80, HTTP://Varnish/,https://cdn.example:8443/purge,',
    });

    expect(purgeUrls).toEqual(['http://varnish/', 'https://cdn.example:8443/purge']);
  });

  it.each([
    ['CACHE_MAX_AGE', '-1', /CACHE_MAX_AGE must be an integer/],
    ['CACHE_MAX_AGE', '1.5', /CACHE_MAX_AGE must be an integer/],
    ['CACHE_SHARED_MAX_AGE', '31536001', /CACHE_SHARED_MAX_AGE must be an integer number of seconds between 0/],
    ['CACHE_PURGE_URLS', 'varnish:80', /CACHE_PURGE_URLS must be http/],
    ['CACHE_PURGE_URLS', 'ftp://varnish', /CACHE_PURGE_URLS must be http/],
    ['CACHE_PURGE_URLS', 'http://user:pw@varnish', /CACHE_PURGE_URLS must be http/],
    ['CACHE_PURGE_URLS', 'http://varnish/?x=1', /CACHE_PURGE_URLS must be http/],
    ['CACHE_PURGE_URLS', 'http://[varnish', /CACHE_PURGE_URLS lists http:\/\/\[varnish, which is not a URL/],
  ])('%s=%p is refused with one line naming it', (name, value, message) => {
    expect(() => loadCacheConfig({ [name]: value })).toThrow(message);
  });
});

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
    ['CACHE_PURGE_TOKEN', 'short', /CACHE_PURGE_TOKEN must be 32 to 256 characters/],
    ['CACHE_PURGE_TOKEN', `${'a'.repeat(32)} b`, /CACHE_PURGE_TOKEN must be 32 to 256 characters/],
    ['CACHE_PURGE_TOKEN', 'a'.repeat(257), /CACHE_PURGE_TOKEN must be 32 to 256 characters/],
  ])('%s=%p is refused with one line naming it', (name, value, message) => {
    expect(() => loadCacheConfig({ [name]: value })).toThrow(message);
  });

  const TOKEN = 'f'.repeat(64);

  it.each<[string, Record<string, string>, string | undefined]>([
    ['a token', { CACHE_PURGE_TOKEN: TOKEN }, TOKEN],
    ['an empty one: none', { CACHE_PURGE_TOKEN: '' }, undefined],
    ['none', {}, undefined],
  ])('CACHE_PURGE_TOKEN: %s', (_name, env, purgeToken) => {
    expect(loadCacheConfig(env).purgeToken).toBe(purgeToken);
  });

  it.each<[string, Record<string, string>, boolean]>([
    ['another host, no token', { CACHE_PURGE_URLS: 'http://varnish:80' }, false],
    ['another host among loopback ones', { CACHE_PURGE_URLS: 'http://127.0.0.1:6081,http://varnish' }, false],
    ['another host with a token', { CACHE_PURGE_URLS: 'http://varnish:80', CACHE_PURGE_TOKEN: TOKEN }, true],
    ['this host only', { CACHE_PURGE_URLS: 'http://localhost:6081,http://127.0.0.1,http://[::1]:80' }, true],
    ['no cache', {}, true],
  ])('in production, %s: starts %p', (_name, env, starts) => {
    const load = () => loadCacheConfig({ NODE_ENV: 'production', ...env });

    if (starts) expect(load).not.toThrow();
    else expect(load).toThrow(/CACHE_PURGE_TOKEN is required when NODE_ENV=production and CACHE_PURGE_URLS names/);
  });

  it('outside production, another host without a token starts', () => {
    expect(loadCacheConfig({ CACHE_PURGE_URLS: 'http://varnish:80' }).purgeUrls).toEqual(['http://varnish/']);
  });
});

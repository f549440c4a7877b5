import type { NextFunction, Request, Response } from 'express';
import type { ConfigType } from '@nestjs/config';
import type { authConfig } from '../config/auth.config';
import type { CacheConfig } from '../config/cache.config';
import type { ReadReplicas } from '../database/read-replicas';
import { NOT_STORED, notStoredByDefault, SharedCache } from './shared-cache';

type Headers = Record<string, string>;

function exchange(requestHeaders: Headers = {}): { request: Request; response: Response; headers: Headers } {
  const headers: Headers = {};
  const response = {
    setHeader: (name: string, value: string) => (headers[name] = value),
    vary: (name: string) => (headers.Vary = headers.Vary === undefined ? name : `${headers.Vary}, ${name}`),
  };
  return { request: { headers: requestHeaders } as Request, response: response as unknown as Response, headers };
}

const auth = (readsRequireAuth: boolean) => ({ readsRequireAuth }) as ConfigType<typeof authConfig>;
const cache = (maxAge: number, sharedMaxAge: number): CacheConfig => ({ maxAge, sharedMaxAge, purgeUrls: [] });
const replicas = (lagBoundMs: number) => ({ lagBoundMs }) as ReadReplicas;

describe('SharedCache.keep', () => {
  it.each<[string, CacheConfig, boolean, Headers, Headers, number?]>([
    [
      'defaults, no Authorization: public, kept a day by shared caches, not by browsers',
      cache(0, 86_400),
      false,
      {},
      { 'Cache-Control': 'public, max-age=0, s-maxage=86400', 'Surrogate-Key': 'blog-1 blogs', Vary: 'Authorization' },
    ],
    [
      'CACHE_MAX_AGE=60, CACHE_SHARED_MAX_AGE=600',
      cache(60, 600),
      false,
      {},
      { 'Cache-Control': 'public, max-age=60, s-maxage=600', 'Surrogate-Key': 'blog-1 blogs', Vary: 'Authorization' },
    ],
    [
      'CACHE_SHARED_MAX_AGE=0: no-cache, no keys',
      cache(60, 0),
      false,
      {},
      { 'Cache-Control': 'no-cache', Vary: 'Authorization' },
    ],
    [
      'replicas serve reads: how far behind they can be',
      cache(0, 86_400),
      false,
      {},
      {
        'Cache-Control': 'public, max-age=0, s-maxage=86400',
        'Surrogate-Key': 'blog-1 blogs',
        'Read-Lag-Bound': '1500',
        Vary: 'Authorization',
      },
      1500,
    ],
    ['a bearer token: untouched', cache(0, 86_400), false, { authorization: 'Bearer x' }, {}, 1500],
    ['an invalid Authorization: untouched', cache(0, 86_400), false, { authorization: 'Basic' }, {}],
    ['READS_REQUIRE_AUTH=true: untouched', cache(0, 86_400), true, {}, {}],
  ])('%s', (_name, config, readsRequireAuth, requestHeaders, expected, lagBoundMs = 0) => {
    const { request, response, headers } = exchange(requestHeaders);

    new SharedCache(config, auth(readsRequireAuth), replicas(lagBoundMs)).keep(request, response, 'blog-1 blogs');

    expect(headers).toStrictEqual(expected);
  });
});

describe('notStoredByDefault', () => {
  it('marks every answer no-store, then hands on', () => {
    const { request, response, headers } = exchange();
    const next = jest.fn() as NextFunction;

    notStoredByDefault(request, response, next);

    expect(headers).toStrictEqual({ 'Cache-Control': NOT_STORED });
    expect(NOT_STORED).toBe('no-store');
    expect(next).toHaveBeenCalledWith();
  });
});

import express from 'express';
import request from 'supertest';
import { ignoreRequestNoCacheInFreshness, withEntityTag } from './origin-freshness';

const TAG = '"7-2"';

describe('withEntityTag, with ignoreRequestNoCacheInFreshness', () => {
  const app = express();
  ignoreRequestNoCacheInFreshness(app);
  app.all('/thing', (_request, response) => {
    response.setHeader('Cache-Control', 'public, max-age=60');
    response.setHeader('Vary', 'Authorization');
    response.json(withEntityTag(response, TAG, { id: 7 }));
  });

  it('answers the body with its ETag', async () => {
    const res = await request(app).get('/thing').expect(200);
    expect([res.headers.etag, res.body]).toEqual([TAG, { id: 7 }]);
  });

  it.each([
    ['the tag', { 'If-None-Match': TAG }],
    ['its weak form among others', { 'If-None-Match': `"other", W/${TAG}` }],
    ['*', { 'If-None-Match': '*' }],
    ['the tag and Cache-Control: no-cache, as fetch() sends', { 'If-None-Match': TAG, 'Cache-Control': 'no-cache' }],
  ])('a GET with If-None-Match of %s is 304 without a body, its headers repeated', async (_name, headers) => {
    const res = await request(app).get('/thing').set(headers).expect(304);
    expect(res.text).toBe('');
    expect(res.headers['content-type']).toBeUndefined();
    expect([res.headers.etag, res.headers['cache-control'], res.headers.vary]).toEqual([
      TAG,
      'public, max-age=60',
      'Authorization',
    ]);
  });

  it.each([
    ['a GET naming another tag', 'get', '"7-1"', 200],
    ['a HEAD naming the tag', 'head', TAG, 304],
    ['a POST naming the tag', 'post', TAG, 200],
  ] as const)('%s is %d', async (_name, method, tag, status) => {
    const res = await request(app)[method]('/thing').set('If-None-Match', tag);
    expect([res.status, res.headers.etag]).toEqual([status, TAG]);
  });
});

import type { Request, Response } from 'express';
import { PublicAnswerPipe } from './public-read';
import { SharedCache } from './shared-cache';

describe('@PublicRead(): the PublicAnswer of a read', () => {
  const cache = new SharedCache(
    { maxAge: 0, sharedMaxAge: 60, purgeUrls: [] },
    { readsRequireAuth: false } as never,
    { lagBoundMs: 0 } as never,
  );
  let headers: Record<string, string>;
  const answerTo = (authorization?: string) => {
    headers = {};
    const response = {
      setHeader: (name: string, value: string) => (headers[name] = value),
      vary: (name: string) => (headers.Vary = name),
    } as unknown as Response;
    const request = { url: '/api/v1/things?limit=1', headers: { authorization }, res: response } as unknown as Request;
    return new PublicAnswerPipe(cache).transform(request);
  };

  it('keeps an anonymous answer with its keys, space-separated', () => {
    answerTo().keep('comment-41', 'comments-7');
    expect(headers).toStrictEqual({
      'Cache-Control': 'public, max-age=0, s-maxage=60',
      'Surrogate-Key': 'comment-41 comments-7',
      Vary: 'Authorization',
    });
  });

  it('keeps nothing for a request with a token', () => {
    answerTo('Bearer t').keep('comment-41');
    expect(headers).toStrictEqual({});
  });

  it('tags the body with its ETag and gives the body back', () => {
    const body = { id: 41 };
    expect(answerTo().tagged('"41-1"', body)).toBe(body);
    expect(headers).toStrictEqual({ ETag: '"41-1"' });
  });

  it.each([
    ['a next page', 'abc.def', { Link: '</api/v1/things?limit=1&cursor=abc.def>; rel="next"' }],
    ['no next page', null, {}],
  ])('links %s', (_name, cursor, expected) => {
    answerTo().linkNext('/api/v1/things', cursor);
    expect(headers).toStrictEqual(expected);
  });
});

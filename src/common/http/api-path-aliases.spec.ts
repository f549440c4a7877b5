import type { Request, Response } from 'express';
import { apiPathAliases } from './api-path-aliases';

describe('apiPathAliases', () => {
  const rewrite = apiPathAliases(['blogs', 'changes']);

  /** The URL that routing sees after the middleware ran on `url`. */
  const routed = (url: string): string => {
    const request = { url } as Request;
    const next = jest.fn();
    rewrite(request, {} as Response, next);
    expect(next).toHaveBeenCalledTimes(1);
    return request.url;
  };

  it.each([
    ['/api/blogs', '/api/v1/blogs'],
    ['/v1/blogs/7?x=1', '/api/v1/blogs/7?x=1'],
    ['/API/Changes?after=3', '/api/v1/Changes?after=3'],
    ['/v1/changes', '/api/v1/changes'],
  ])('rewrites %s to %s', (url, expected) => {
    expect(routed(url)).toBe(expected);
  });

  it.each(['/api/v1/blogs', '/api/blogsx', '/api/tags', '/v2/blogs', '/health/live', '/apiblogs'])(
    'leaves %s as it is',
    (url) => {
      expect(routed(url)).toBe(url);
    },
  );
});

import type { IncomingMessage } from 'node:http';
import { canonicalPathOf, matchedRouteOf } from './matched-route';

/** A request Express routed to `template` with `params`, at `path`. */
const routed = (path: string, template?: string, params: Record<string, string> = {}) =>
  ({
    url: path,
    path,
    baseUrl: '',
    params,
    ...(template && { route: { path: template } }),
  }) as unknown as IncomingMessage & {
    path: string;
    params: Record<string, string>;
  };

describe('canonicalPathOf', () => {
  it.each([
    ['/API/V1/BLOGS', '/api/v1/blogs', {}, '/api/v1/blogs'],
    ['/api/v1/blogs', '/api/v1/blogs', {}, '/api/v1/blogs'],
    ['/Api/V1/Blogs/14/Comments', '/api/v1/blogs/:id/comments', { id: '14' }, '/api/v1/blogs/14/comments'],
    ['/API/V1/BLOGS/by-slug/a-b', '/api/v1/blogs/by-slug/:slug', { slug: 'a-b' }, '/api/v1/blogs/by-slug/a-b'],
    ['/api/v1/blogs/by-slug/A%2FB', '/api/v1/blogs/by-slug/:slug', { slug: 'A/B' }, '/api/v1/blogs/by-slug/A%2FB'],
  ])('%s routed to %s is %s… with its parameters as they came', (path, template, params, expected) => {
    expect(canonicalPathOf(routed(path, template, params))).toBe(expected);
  });

  it.each([
    ['no route', routed('/API/nothing')],
    ['a wildcard route', routed('/API/nothing', '/api{/*splat}')],
  ])('is the path itself with %s', (_name, request) => {
    expect(matchedRouteOf(request)).toBeUndefined();
    expect(canonicalPathOf(request)).toBe('/API/nothing');
  });
});

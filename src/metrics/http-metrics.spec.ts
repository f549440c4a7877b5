import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { Histogram, Registry } from 'prom-client';
import { createHttpMetricsMiddleware, HttpLabel, routeTemplateOf, UNMATCHED_ROUTE } from './http-metrics';

function fakeRequest(fields: Partial<Request> & { route?: unknown }): Request {
  return { method: 'GET', baseUrl: '', ...fields } as unknown as Request;
}

function fakeResponse(statusCode: number): Response & EventEmitter {
  return Object.assign(new EventEmitter(), { statusCode }) as unknown as Response & EventEmitter;
}

describe('routeTemplateOf', () => {
  it('is the matched route template, prefixed by the router mount path', () => {
    expect(routeTemplateOf(fakeRequest({ route: { path: '/api/v1/blogs/:id' } }))).toBe('/api/v1/blogs/:id');
    expect(routeTemplateOf(fakeRequest({ baseUrl: '/mounted', route: { path: '/:id' } }))).toBe('/mounted/:id');
  });

  it('is "unmatched" when no route took the request, never the raw URL', () => {
    expect(routeTemplateOf(fakeRequest({ url: '/api/v1/blogs/12345' }))).toBe(UNMATCHED_ROUTE);
    expect(routeTemplateOf(fakeRequest({ route: {} }))).toBe(UNMATCHED_ROUTE);
  });

  it('is "unmatched" when only a wildcard middleware mount set the route', () => {
    expect(routeTemplateOf(fakeRequest({ route: { path: '/api{/*splat}' } }))).toBe(UNMATCHED_ROUTE);
  });
});

describe('createHttpMetricsMiddleware', () => {
  const makeHistogram = (): Histogram<HttpLabel> =>
    new Histogram({
      name: 'test_http_request_duration_seconds',
      help: 'test',
      labelNames: ['method', 'route', 'status_code'],
      registers: [new Registry()],
    });

  const countOf = async (histogram: Histogram<HttpLabel>): Promise<Record<string, number>> => {
    const { values } = await histogram.get();
    return Object.fromEntries(
      values
        .filter((v) => v.metricName === 'test_http_request_duration_seconds_count')
        .map((v) => [`${v.labels.method} ${v.labels.route} ${v.labels.status_code}`, v.value]),
    );
  };

  it('calls next at once and observes one duration when the response finishes, with the final status', async () => {
    const histogram = makeHistogram();
    const middleware = createHttpMetricsMiddleware(histogram);
    const request = fakeRequest({ method: 'PUT' });
    const response = fakeResponse(200);
    const next = jest.fn();

    middleware(request, response, next);
    expect(next).toHaveBeenCalledTimes(1);
    await expect(countOf(histogram)).resolves.toEqual({});

    // Routing happens after the middleware: the template and status are read at the end.
    (request as { route?: unknown }).route = { path: '/api/v1/blogs/:id' };
    response.statusCode = 403;
    response.emit('finish');
    response.emit('finish');

    await expect(countOf(histogram)).resolves.toEqual({ 'PUT /api/v1/blogs/:id 403': 1 });
  });

  it('observes nothing for a response that never finished (connection closed first)', async () => {
    const histogram = makeHistogram();
    const response = fakeResponse(200);

    createHttpMetricsMiddleware(histogram)(fakeRequest({}), response, jest.fn());
    response.emit('close');

    await expect(countOf(histogram)).resolves.toEqual({});
  });
});

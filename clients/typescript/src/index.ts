import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, operations, paths } from './schema';
export type Blog = components['schemas']['BlogResponse'];
export type BlogList = components['schemas']['BlogListResponse'];
export type CreateBlog = components['schemas']['CreateBlogDto'];
export type UpdateBlog = components['schemas']['UpdateBlogDto'];
export type PatchBlog = components['schemas']['PatchBlogDto'];
export type ErrorBody = components['schemas']['ErrorResponse'];
export type BlogClient = Client<paths>;

export interface BlogClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** A bearer token, sent on every request. */
  token?: string;
}

// openapi-fetch takes a non-2xx answer for an error and its empty text for the error body, unless it
// says `Content-Length: 0` (which a 304 never carries). Saying so here makes a 304 come back with
// neither `data` nor `error`: callers look at `response.status`.
const notModified: Middleware = {
  onResponse({ response }) {
    if (response.status !== 304) return undefined;
    const headers = new Headers(response.headers);
    headers.set('Content-Length', '0');
    return new Response(null, { status: 304, headers });
  },
};

/** A client of the blog service at `baseUrl` (scheme, host and port, e.g. `https://blogs.example.com`). */
export function createBlogClient(baseUrl: string, { token, ...options }: BlogClientOptions = {}): BlogClient {
  const client = createClient<paths>({ ...options, baseUrl });
  client.use(notModified);
  if (token !== undefined) {
    client.use({
      onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${token}`);
      },
    });
  }
  return client;
}

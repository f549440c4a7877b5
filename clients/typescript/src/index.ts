import createClient, {
  type Client,
  type ClientOptions,
  type FetchResponse,
  type MaybeOptionalInit,
  type Middleware,
} from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';
export type Blog = components['schemas']['BlogResponse'];
export type BlogList = components['schemas']['BlogListResponse'];
export type CreateBlog = components['schemas']['CreateBlogDto'];
export type UpdateBlog = components['schemas']['UpdateBlogDto'];
export type PatchBlog = components['schemas']['PatchBlogDto'];
/** An error answer: a problem details object (RFC 9457) with the 1.x `statusCode`, `error` and `message`. */
export type Problem = components['schemas']['Problem'];
/** The 1.x name of {@link Problem}. */
export type ErrorBody = Problem;

/** Methods that send a request body. */
type BodyMethod = 'post' | 'put' | 'patch';

/** Paths of `paths` that have operation `M`. */
type PathsWith<M extends BodyMethod> = {
  [P in keyof paths]: paths[P] extends { [K in M]: object } ? P : never;
}[keyof paths];

/** The body the operation `M` of `P` accepts. */
type BodyOf<P extends keyof paths, M extends BodyMethod> = NonNullable<MaybeOptionalInit<paths[P], M>>['body'];

/** Types each property of `Sent` that `Body` lacks as a message naming it (the server answers 400 to it). */
type NoUnknownFields<Sent, Body> = {
  [K in Exclude<keyof Sent, keyof NonNullable<Body>>]: `'${K & string}' is not a property of this request body`;
};

/**
 * A body-sending method of openapi-fetch whose body may hold only the fields of the operation's schema. openapi-fetch
 * infers its options as a type parameter, which escapes TypeScript's excess property check: `Sent` is the body's type.
 */
type ExactBodyMethod<M extends BodyMethod> = <
  P extends PathsWith<M>,
  Init extends MaybeOptionalInit<paths[P], M>,
  Sent extends BodyOf<P, M>,
>(
  url: P,
  init: Init & { body: Sent & NoUnknownFields<Sent, BodyOf<P, M>> },
) => Promise<FetchResponse<NonNullable<paths[P][M]>, Init, `${string}/${string}`>>;

/** The openapi-fetch client of the blog service; `POST`, `PUT` and `PATCH` refuse a body field the API does not know. */
export interface BlogClient extends Omit<Client<paths>, 'POST' | 'PUT' | 'PATCH'> {
  POST: ExactBodyMethod<'post'>;
  PUT: ExactBodyMethod<'put'>;
  PATCH: ExactBodyMethod<'patch'>;
}

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
  return client as BlogClient;
}

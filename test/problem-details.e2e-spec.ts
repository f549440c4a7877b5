import { connect } from 'node:net';
import type { Response } from 'supertest';
import { PROBLEM_TYPES } from '../src/common/filters/problem-types';
import { bearer, BLOGS, BODY, createBlog, expectJsonError } from './support/blog-api';
import { OpenApiContract } from './support/openapi-contract';
import { PROBLEM_CONTENT_TYPE, PROBLEM_MEMBERS, problemBody, problemType } from './support/problem';
import { useTestApp } from './support/test-app';

// Contract 1.8: every error is a problem details object (RFC 9457) with the 1.x members; the problem types a client
// acts on are URIs under PUBLIC_URL/problems/, served by the service; application/json only when Accept asks for it.

const PUBLIC_URL = 'https://api.blog.example';
const contract = new OpenApiContract();

/** The problem type URI `name` of this app. */
const typeUri = (name: keyof typeof PROBLEM_TYPES): string => `${PUBLIC_URL}/problems/${name}`;

describe('errors as problem details (contract 1.8)', () => {
  const t = useTestApp({ PUBLIC_URL, RATE_LIMIT_WRITES: '1000', RATE_LIMIT_READS: '1000' });
  const auth = (sub = 'alice'): string => bearer(t.token(sub));

  describe('every status family', () => {
    it('400 on the body: validation-error, a pointer per broken rule, the 1.x messages kept', async () => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .send({ ...BODY, title: 7, tags: ['ok', 'also ok', '', '!!!'] });

      expectJsonError(res, 400);
      expect(res.body).toEqual(
        problemBody(400, res.body.message, { type: 'validation-error', errors: expect.any(Array) }),
      );
      expect(res.body.type).toBe(typeUri('validation-error'));
      expect(res.body.title).toBe(PROBLEM_TYPES['validation-error'].title);
      expect(res.body.instance).toBe(BLOGS);
      // A rule on every item (class-validator's `each`) points at each item that breaks it.
      expect(res.body.errors).toEqual([
        { detail: 'title must be a string', pointer: '/title' },
        { detail: 'tags[2] must be 1 to 50 characters long', pointer: '/tags/2' },
      ]);
      expect(res.body.message).toEqual((res.body.errors as { detail: string }[]).map((e) => e.detail));
      contract.expectDocumented('post', BLOGS, res);
    });

    it('400 on a tag of the body: the pointer names its array index', async () => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .send({ ...BODY, tags: ['ok', 'also ok', 'fine', '!!!'] });

      expectJsonError(res, 400);
      expect(res.body.errors).toEqual([{ detail: 'tags[3] must contain a letter or digit', pointer: '/tags/3' }]);
      expect(res.body.message).toEqual(['tags[3] must contain a letter or digit']);
    });

    it.each<[string, unknown, { detail: string; pointer: string }[]]>([
      ['a wrong type', ['ok', 5], [{ detail: 'tags[1] must be a string', pointer: '/tags/1' }]],
      [
        'wrong types',
        [null, 'ok', {}],
        [
          { detail: 'tags[0] must be a string', pointer: '/tags/0' },
          { detail: 'tags[2] must be a string', pointer: '/tags/2' },
        ],
      ],
      [
        'a wrong length',
        ['ok', 'x'.repeat(51)],
        [{ detail: 'tags[1] must be 1 to 50 characters long', pointer: '/tags/1' }],
      ],
      ['whitespace only', ['ok', ' '], [{ detail: 'tags[1] must not be whitespace only', pointer: '/tags/1' }]],
      [
        'too many items (the whole array)',
        Array.from({ length: 21 }, (_, i) => `t${i}`),
        [{ detail: 'tags must have at most 20 names', pointer: '/tags' }],
      ],
      ['not an array (the whole array)', 'ok', [{ detail: 'tags must be an array of names', pointer: '/tags' }]],
    ])('400 on tags with %s: each broken rule points at its item', async (_name, tags, errors) => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .send({ ...BODY, tags });

      expectJsonError(res, 400);
      expect(res.body.errors).toEqual(errors);
      expect(res.body.message).toEqual(errors.map((e) => e.detail));
    });

    it('400 on an unknown body property: its pointer, with / and ~ escaped (RFC 6901)', async () => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .send({ ...BODY, 'a/b~c': 1 });

      expectJsonError(res, 400);
      expect(res.body.errors).toEqual([{ detail: 'property a/b~c should not exist', pointer: '/a~1b~0c' }]);
    });

    it('400 on malformed JSON: a validation-error of the whole body (pointer "")', async () => {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .set('Content-Type', 'application/json')
        .send('{"title": ');

      expectJsonError(res, 400);
      expect(res.body.type).toBe(typeUri('validation-error'));
      expect(res.body.errors).toEqual([{ detail: res.body.message, pointer: '' }]);
    });

    it.each<[string, string, string]>([
      ['a query parameter', `${BLOGS}?limit=1000`, 'limit'],
      ['a path parameter', `${BLOGS}/0`, 'id'],
      ['the cursor', `${BLOGS}?cursor=forged.cursor`, 'cursor'],
    ])('400 on %s: validation-error naming the parameter', async (_name, path, parameter) => {
      const res = await t.http.get(path);

      expectJsonError(res, 400);
      expect(res.body.type).toBe(typeUri('validation-error'));
      expect(res.body.instance).toBe(path.split('?')[0]);
      const messages: string[] = Array.isArray(res.body.message) ? res.body.message : [res.body.message];
      expect(res.body.errors).toEqual(messages.map((detail) => ({ detail, parameter })));
    });

    it.each<[string, () => Promise<Response>, number, string]>([
      ['401', () => t.http.post(BLOGS).send(BODY), 401, BLOGS],
      ['404 of a path no route serves', () => t.http.get('/api/v1/nothing-here'), 404, '/api/v1/nothing-here'],
      ['404 of a blog', () => t.http.get(`${BLOGS}/2147483647`), 404, `${BLOGS}/2147483647`],
      [
        '415',
        () => t.http.post(BLOGS).set('Authorization', auth()).set('Content-Type', 'text/plain').send('x'),
        415,
        BLOGS,
      ],
      [
        '413',
        () =>
          t.http
            .post(BLOGS)
            .set('Authorization', auth())
            .send({ ...BODY, content: 'x'.repeat(2 ** 20 + 1) }),
        413,
        BLOGS,
      ],
    ])('%s: about:blank, the reason phrase as title', async (_name, send, status, instance) => {
      const res = await send();

      expectJsonError(res, status);
      expect(res.body).toEqual({ ...problemBody(status, res.body.message), instance });
    });

    it('403: about:blank', async () => {
      const { body: blog } = await createBlog(t, 'alice');
      const res = await t.http.put(`${BLOGS}/${blog.id}`).set('Authorization', auth('mallory')).send(BODY);

      expectJsonError(res, 403);
      expect(res.body).toEqual(problemBody(403, res.body.message));
    });

    it('409 slug-taken', async () => {
      const slug = `taken-${Date.now()}`;
      await createBlog(t, 'alice', { slug } as never);
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .send({ ...BODY, slug });

      expectJsonError(res, 409);
      expect(res.body).toEqual(
        problemBody(409, "slug is another blog's slug: choose another one", { type: 'slug-taken' }),
      );
      expect(res.body.title).toBe(PROBLEM_TYPES['slug-taken'].title);
      contract.expectDocumented('post', BLOGS, res);
    });

    it('412 precondition-failed', async () => {
      const { body: blog } = await createBlog(t, 'alice');
      const res = await t.http
        .put(`${BLOGS}/${blog.id}`)
        .set('Authorization', auth())
        .set('If-Match', '"not-the-etag"')
        .send(BODY);

      expectJsonError(res, 412);
      expect(res.body.type).toBe(typeUri('precondition-failed'));
      expect(res.body.title).toBe(PROBLEM_TYPES['precondition-failed'].title);
      contract.expectDocumented('put', `${BLOGS}/{id}`, res);
    });

    it('422 idempotency-key-reused and 409 idempotency-key-in-flight', async () => {
      const key = `problem-${Date.now()}`;
      expect(
        (await t.http.post(BLOGS).set('Authorization', auth()).set('Idempotency-Key', key).send(BODY)).status,
      ).toBe(201);
      const reused = await t.http
        .post(BLOGS)
        .set('Authorization', auth())
        .set('Idempotency-Key', key)
        .send({ ...BODY, title: 'Another title' });
      expectJsonError(reused, 422);
      expect(reused.body.type).toBe(typeUri('idempotency-key-reused'));

      const busyKey = `${key}-busy`;
      await t.dataSource.query(
        `INSERT INTO idempotency_keys (owner_sub, key, fingerprint, locked_until, expires_at)
         VALUES ($1, $2, '\\x00', now() + interval '1 minute', now() + interval '1 day')`,
        ['alice', busyKey],
      );
      const busy = await t.http.post(BLOGS).set('Authorization', auth()).set('Idempotency-Key', busyKey).send(BODY);
      expectJsonError(busy, 409);
      expect(busy.body.type).toBe(typeUri('idempotency-key-in-flight'));
    });

    it('an error kept for an Idempotency-Key is replayed as a problem, negotiated again', async () => {
      const key = `problem-replay-${Date.now()}`;
      const send = (accept?: string): Promise<Response> => {
        const call = t.http.post(BLOGS).set('Authorization', auth()).set('Idempotency-Key', key);
        return (accept === undefined ? call : call.set('Accept', accept)).send({ ...BODY, title: 7 });
      };
      const first = await send();
      const replayed = await send('application/json');

      expect(first.status).toBe(400);
      expect(replayed.headers['idempotent-replayed']).toBe('true');
      expect(replayed.headers['content-type']).toMatch(/^application\/json(;|$)/);
      expect(replayed.body).toEqual(first.body);
    });
  });

  describe('content negotiation', () => {
    it.each<[string | undefined, RegExp]>([
      [undefined, PROBLEM_CONTENT_TYPE],
      ['*/*', PROBLEM_CONTENT_TYPE],
      ['application/*', PROBLEM_CONTENT_TYPE],
      ['application/problem+json', PROBLEM_CONTENT_TYPE],
      ['application/json', /^application\/json(;|$)/],
      ['text/html, application/json;q=0.9', /^application\/json(;|$)/],
      ['application/json, application/problem+json', PROBLEM_CONTENT_TYPE],
      ['application/json;q=0', PROBLEM_CONTENT_TYPE],
      ['text/html', PROBLEM_CONTENT_TYPE],
    ])('Accept: %p → %p, the same body', async (accept, type) => {
      const call = t.http.get(`${BLOGS}/2147483647`);
      const res = await (accept === undefined ? call : call.set('Accept', accept));

      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(type);
      expect(res.headers.vary).toMatch(/\bAccept\b/);
      expect(JSON.parse(res.text)).toEqual(problemBody(404, 'Blog 2147483647 not found'));
      expect(Object.keys(JSON.parse(res.text) as object).sort()).toEqual(PROBLEM_MEMBERS);
    });
  });

  describe('the problem pages', () => {
    it.each(Object.keys(PROBLEM_TYPES))('GET /problems/%s: a public, cacheable HTML page', async (name) => {
      const res = await t.http.get(`/problems/${name}`);

      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html; charset=utf-8/);
      expect(res.headers['cache-control']).toBe('public, max-age=86400');
      expect(res.text).toContain(PROBLEM_TYPES[name as keyof typeof PROBLEM_TYPES].title);
    });

    it('every problem type an error names resolves on the service itself (PUBLIC_URL + path)', async () => {
      const res = await t.http.get(`${BLOGS}/0`);
      const path = new URL(res.body.type as string).pathname;

      expect(res.body.type).toMatch(problemType('validation-error'));
      expect((await t.http.get(path)).status).toBe(200);
    });

    it.each(['VALIDATION-ERROR', 'Slug-Taken', 'rate-LIMITED'])(
      'GET /problems/%s: the page of the type, as every path matches in any letter case',
      async (name) => {
        const res = await t.http.get(`/PROBLEMS/${name}`);

        expect(res.status).toBe(200);
        expect(res.text).toContain(`<code>${name.toLowerCase()}</code>`);
      },
    );

    it.each(['teapot', 'constructor', 'CONSTRUCTOR', '__proto__'])('GET /problems/%s: 404 problem', async (name) => {
      const res = await t.http.get(`/problems/${name}`);

      expectJsonError(res, 404);
      expect(res.body).toEqual(problemBody(404, `Problem type ${name} not found`));
      contract.expectDocumented('get', '/problems/{name}', res);
    });
  });
});

describe('429 rate-limited with Retry-After', () => {
  const t = useTestApp({ RATE_LIMIT_READS: '1', RATE_LIMIT_WINDOW_SECONDS: '60', REDIS_URL: undefined });

  it('429 rate-limited with Retry-After in whole seconds', async () => {
    await t.http.get(`${BLOGS}/2147483647`);
    const res = await t.http.get(`${BLOGS}/2147483647`);

    expectJsonError(res, 429);
    expect(res.body.type).toMatch(problemType('rate-limited'));
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  });
});

describe('503 with Retry-After', () => {
  // Nothing listens on port 1: Redis is unreachable, so readiness fails.
  const t = useTestApp({ REDIS_URL: 'redis://127.0.0.1:1/0' });

  it('503 of readiness (Redis unreachable) with Retry-After', async () => {
    const res = await t.http.get('/health/ready');

    expectJsonError(res, 503);
    expect(res.body).toEqual(problemBody(503, 'Not ready: redis'));
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
  });
});

/** The status, headers and body of the answer to `raw` (bytes Node.js's own parser refuses), read until it closes. */
async function rawExchange(port: number, raw: string): Promise<{ status: number; headers: string; body: string }> {
  const answer = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(port, '127.0.0.1', () => socket.end(raw));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
  const [head, body = ''] = answer.split('\r\n\r\n', 2);
  return { status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(head)?.[1]), headers: head.toLowerCase(), body };
}

describe('requests Node.js refuses before routing: problem details too', () => {
  const t = useTestApp({ PUBLIC_URL });

  it.each([
    [
      'headers over 16 KiB',
      `GET /api/v1/blogs?limit=1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      431,
      'Request headers must be at most 16 KiB in all',
      '/api/v1/blogs',
    ],
    [
      'a header line without a colon',
      'GET /api/v1/tags HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n',
      400,
      'The request is not valid HTTP/1.1',
      '/api/v1/tags',
    ],
    ['a request line that is no HTTP', 'HELLO\r\n\r\n', 400, 'The request is not valid HTTP/1.1', ''],
  ])('%s: its status with the problem body, closed', async (_name, raw, status, message, instance) => {
    const res = await rawExchange(await t.listen(), raw);

    expect(res.status).toBe(status);
    expect(res.headers).toContain('\r\ncontent-type: application/problem+json; charset=utf-8');
    expect(res.headers).toContain('\r\ncache-control: no-store');
    expect(res.headers).toContain('\r\nconnection: close');
    expect(JSON.parse(res.body)).toEqual({ ...problemBody(status, message), instance });
  });
});

import { MAX_BODY_BYTES } from '../src/common/http/json-body.reader';
import { bearer, BLOGS, BODY, createBlog, expectJsonError } from './support/blog-api';
import { OpenApiContract, OpenApiMethod } from './support/openapi-contract';
import { useTestApp, useTestDatabase } from './support/test-app';

const COLLECTION = '/api/v1/blogs';
const ITEM = '/api/v1/blogs/{id}';

describe('OpenAPI document and the responses it describes', () => {
  const contract = new OpenApiContract();
  // The apps run one after another on one database (an embedded one admits one app at a time).
  const database = useTestDatabase();
  let aliceToken: string;
  let blogId: number;

  describe('with the default configuration', () => {
    const t = useTestApp({}, { database });

    beforeAll(async () => {
      aliceToken = t.token('alice');
      blogId = (await createBlog(t, 'alice')).body.id;
    });

    describe('served document', () => {
      it('GET /api/docs-json serves the committed openapi.json, without a token', async () => {
        const res = await t.http.get('/api/docs-json').expect(200);

        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toEqual(contract.document);
      });

      it('GET /api/docs serves Swagger UI, without a token', async () => {
        const res = await t.http.get('/api/docs').expect(200);

        expect(res.headers['content-type']).toMatch(/^text\/html/);
        expect(res.text).toContain('swagger-ui');
      });

      it('documents the seven blog operations at their canonical paths only, with the bearer scheme', () => {
        const operations = Object.entries(contract.document.paths).flatMap(([path, ops]) =>
          Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
        );

        expect(operations).toEqual(
          expect.arrayContaining([
            'GET /api/v1/blogs listBlogs',
            'POST /api/v1/blogs createBlog',
            'GET /api/v1/blogs/{id} getBlog',
            'GET /api/v1/blogs/slug/{slug} getBlogBySlug',
            'PUT /api/v1/blogs/{id} updateBlog',
            'PATCH /api/v1/blogs/{id} patchBlog',
            'DELETE /api/v1/blogs/{id} deleteBlog',
          ]),
        );
        const blogOperations = Object.values(contract.document.paths).flatMap((ops) =>
          Object.values(ops).filter((op) => op.tags?.includes('blogs')),
        );
        expect(blogOperations.map((op) => op.operationId)).toHaveLength(7);
        expect(JSON.stringify(contract.document)).toContain('"scheme":"bearer"');
      });

      it('tells how to get a token for Authorize', () => {
        const { description } = (contract.document as unknown as { info: { description: string } }).info;

        expect(description).toContain('**Authorize**');
        expect(description).toContain('npm run -s token -- --sub alice');
        expect(description).toContain('logs at start-up');
      });

      it('closes every request body schema (additionalProperties: false), as the server refuses unknown fields', () => {
        const bodies = Object.entries(contract.document.paths).flatMap(([path, ops]) =>
          Object.entries(ops).flatMap(([method, op]) =>
            Object.entries(op.requestBody?.content ?? {}).map(([media, { schema }]) => {
              const ref = (schema as { $ref?: string } | undefined)?.$ref ?? '';
              const target = contract.document.components?.schemas?.[ref.replace('#/components/schemas/', '')];
              return [
                `${method} ${path} ${media}`,
                (target as { additionalProperties?: unknown })?.additionalProperties,
              ];
            }),
          ),
        );

        expect(bodies.length).toBeGreaterThanOrEqual(4);
        expect(bodies).toEqual(bodies.map(([operation]) => [operation, false]));
      });

      it.each([
        ['post', COLLECTION, ['token (401)', 'content type (415)', 'body (400)'], ['id (400)', '(404)', '(403)']],
        ['put', ITEM, ['token (401)', 'id (400)', 'existence and visibility (404)', 'ownership (403)'], []],
        [
          'patch',
          ITEM,
          [
            'token (401)',
            'id (400)',
            'content type (415)',
            'body (400)',
            'existence and visibility (404)',
            'ownership (403)',
          ],
          [],
        ],
        [
          'delete',
          ITEM,
          ['token (401)', 'id (400)', 'existence and visibility (404)', 'ownership (403)', '412'],
          ['(415)', 'body (400)', '(413)'],
        ],
      ] as const)('%s %s describes the checks it makes, and only those', (method, path, made, notMade) => {
        const description = contract.document.paths[path][method]?.description ?? '';

        for (const check of made) expect(description).toContain(check);
        for (const check of notMade) expect(description).not.toContain(check);
      });

      it('every documented example matches its own schema', () => {
        const problems: string[] = [];
        for (const [path, ops] of Object.entries(contract.document.paths)) {
          for (const [method, op] of Object.entries(ops)) {
            for (const [status, response] of Object.entries(op.responses)) {
              for (const [mediaType, media] of Object.entries(response.content ?? {})) {
                const examples = [
                  ...(media.example === undefined ? [] : [media.example]),
                  ...Object.values(media.examples ?? {}).map(({ value }) => value),
                ];
                const pointer = ['', 'paths', path, method, 'responses', status, 'content', mediaType, 'schema']
                  .map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1'))
                  .join('/');
                for (const error of examples.flatMap((example) => contract.errorsOf(pointer, example))) {
                  problems.push(`${method} ${path} ${status}: ${error}`);
                }
              }
            }
          }
        }

        expect(problems).toEqual([]);
      });
    });

    it('every operation that takes an Idempotency-Key documents its 409 in flight beside its own 409', () => {
      const idempotent = Object.entries(contract.document.paths).flatMap(([path, ops]) =>
        Object.entries(ops)
          .filter(([, op]) => op.parameters?.some((parameter) => parameter.name === 'Idempotency-Key'))
          .map(
            ([method, op]) =>
              [`${method} ${path}`, op.responses['409']?.content?.['application/problem+json']] as const,
          ),
      );

      expect(idempotent.map(([operation]) => operation)).toEqual(
        expect.arrayContaining(['post /api/v1/blogs', 'post /api/v1/blogs/{id}/revisions/{version}/restore']),
      );
      for (const [operation, media] of idempotent) {
        const types = [media?.example, ...Object.values(media?.examples ?? {}).map(({ value }) => value)]
          .map((example) => (example as { type?: string } | undefined)?.type ?? '')
          .filter((type) => type !== '');
        expect([operation, types.some((type) => type.endsWith('/problems/idempotency-key-in-flight'))]).toEqual([
          operation,
          true,
        ]);
      }
      const create =
        contract.document.paths['/api/v1/blogs'].post?.responses['409']?.content?.['application/problem+json'];
      expect(Object.keys(create?.examples ?? {})).toEqual(['slug-taken', 'idempotency-key-in-flight']);
    });

    describe('aliases: every resource the document serves at /api/v1 is served at /api/… and /v1/… too', () => {
      const resources = [
        ...new Set(
          Object.keys(contract.document.paths).flatMap((path) => /^\/api\/v1\/([^/{]+)/.exec(path)?.[1] ?? []),
        ),
        // A resource without a list (`/comments/{id}` only) has no collection to compare; its own spec tests its aliases.
      ].filter((resource) => contract.document.paths[`/api/v1/${resource}`]?.get !== undefined);
      const cases = resources.flatMap((resource) =>
        ['/api', '/v1'].map((prefix) => [`${prefix}/${resource}`, resource]),
      );

      it('finds the resources in the document', () => {
        expect(resources).toEqual(expect.arrayContaining(['blogs', 'changes', 'tags', 'webhooks']));
      });

      it.each(cases)('GET %s?limit=1 answers as GET /api/v1/%s?limit=1', async (alias, resource) => {
        const token = bearer(t.token('admin', { scope: 'blogs:admin events:read webhooks:admin' }));
        const canonical = await t.http.get(`/api/v1/${resource}?limit=1`).set('Authorization', token);
        const res = await t.http.get(`${alias}?limit=1`).set('Authorization', token);

        expect(canonical.status).toBe(200);
        expect(res.status).toBe(canonical.status);
        expect(res.body).toEqual(canonical.body);
      });
    });

    describe('real responses match the document', () => {
      const check = (method: OpenApiMethod, path: string, res: Parameters<OpenApiContract['expectDocumented']>[2]) =>
        contract.expectDocumented(method, path, res);

      it('list: 200 with the envelope, 400 on a bad query', async () => {
        const page = await t.http.get(`${BLOGS}?limit=5&offset=0`).expect(200);
        expect((page.body as { data: unknown[] }).data.length).toBeGreaterThan(0);
        check('get', COLLECTION, page);

        const bad = await t.http.get(`${BLOGS}?limit=0`);
        expectJsonError(bad, 400);
        check('get', COLLECTION, bad);
      });

      it('list: filters, search, sort and fields; the Link and nextCursor of a next page; a cursor page with offset null; 400 on q and cursor', async () => {
        await createBlog(t, 'alice', { title: 'Contract search', content: 'needle one' });
        await createBlog(t, 'alice', { title: 'Contract search', content: 'needle two' });
        const query = 'q=needle&author=Alice&sort=title&fields=id,title&limit=1&createdAfter=2000-01-01T00:00:00Z';
        const first = await t.http.get(`${BLOGS}?${query}`).expect(200);
        expect(first.body).toMatchObject({ total: 2, offset: 0, nextCursor: expect.any(String) });
        expect(Object.keys((first.body as { data: object[] }).data[0]).sort()).toEqual(['id', 'title']);
        expect(first.headers.link).toMatch(/; rel="next"$/);
        check('get', COLLECTION, first);

        const cursor = (first.body as { nextCursor: string }).nextCursor;
        const last = await t.http.get(`${BLOGS}?${query}&cursor=${cursor}`.replace('&limit=1', '')).expect(200);
        expect(last.body).toMatchObject({ total: 2, offset: null, nextCursor: null });
        expect(last.headers.link).toBeUndefined();
        check('get', COLLECTION, last);

        for (const refused of [`q=!!!`, `cursor=${cursor}`, `${query}&offset=0&cursor=${cursor}`]) {
          const res = await t.http.get(`${BLOGS}?${refused}`);
          expectJsonError(res, 400);
          check('get', COLLECTION, res);
        }
      });

      it('read: 200, 400 on a bad id, 404 when absent', async () => {
        check('get', ITEM, await t.http.get(`${BLOGS}/${blogId}`).expect(200));
        check('get', ITEM, await t.http.get(`${BLOGS}/abc`).expect(400));
        check('get', ITEM, await t.http.get(`${BLOGS}/2147483647`).expect(404));
      });

      it('read by slug: 200, 304, 301, 400 on a bad slug, 404 when absent', async () => {
        const SLUG = '/api/v1/blogs/slug/{slug}';
        const slug = `openapi-${Date.now()}`;
        const created = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(aliceToken))
          .send({ ...BODY, slug, status: 'draft' })
          .expect(201);
        check('post', COLLECTION, created);
        const { id } = created.body as { id: number };
        check('get', SLUG, await t.http.get(`${BLOGS}/slug/${slug}`).expect(404));
        await t.http
          .patch(`${BLOGS}/${id}`)
          .set('Authorization', bearer(aliceToken))
          .send({ status: 'published', slug: `${slug}-new` })
          .expect(200);
        const read = await t.http.get(`${BLOGS}/slug/${slug}-new`).expect(200);
        check('get', SLUG, read);
        check(
          'get',
          SLUG,
          await t.http.get(`${BLOGS}/slug/${slug}-new`).set('If-None-Match', read.headers.etag).expect(304),
        );
        check('get', SLUG, await t.http.get(`${BLOGS}/slug/${slug}`).expect(301));
        check('get', SLUG, await t.http.get(`${BLOGS}/slug/Not-A-Slug`).expect(400));
        const taken = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(aliceToken))
          .send({ ...BODY, slug: `${slug}-new` });
        expect(taken.status).toBe(409);
        check('post', COLLECTION, taken);
      });

      it('create: 201 with Location, 400 (list of messages and malformed JSON), 401 (none and rejected), 413, 415', async () => {
        const created = await t.http.post(BLOGS).set('Authorization', bearer(aliceToken)).send(BODY).expect(201);
        check('post', COLLECTION, created);
        expect(created.headers.location).toBe(`${BLOGS}/${(created.body as { id: number }).id}`);

        const invalid = await t.http.post(BLOGS).set('Authorization', bearer(aliceToken)).send({ title: '' });
        expect(invalid.status).toBe(400);
        expect(Array.isArray((invalid.body as { message: unknown }).message)).toBe(true);
        check('post', COLLECTION, invalid);

        const malformed = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(aliceToken))
          .set('Content-Type', 'application/json')
          .send('{"title":');
        expect(malformed.status).toBe(400);
        check('post', COLLECTION, malformed);

        check('post', COLLECTION, await t.http.post(BLOGS).send(BODY).expect(401));
        check('post', COLLECTION, await t.http.post(BLOGS).set('Authorization', 'Bearer nope').send(BODY).expect(401));

        const tooLarge = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(aliceToken))
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ ...BODY, content: 'x'.repeat(MAX_BODY_BYTES) }));
        expect(tooLarge.status).toBe(413);
        check('post', COLLECTION, tooLarge);

        const textPlain = await t.http
          .post(BLOGS)
          .set('Authorization', bearer(aliceToken))
          .set('Content-Type', 'text/plain')
          .send('hello');
        expect(textPlain.status).toBe(415);
        check('post', COLLECTION, textPlain);
      });

      it('update: 200, 400, 401, 403, 404, 413, 415', async () => {
        const path = `${BLOGS}/${blogId}`;
        const updated = await t.http
          .put(path)
          .set('Authorization', bearer(aliceToken))
          .send({ ...BODY, title: 'Changed' })
          .expect(200);
        check('put', ITEM, updated);

        check('put', ITEM, await t.http.put(path).set('Authorization', bearer(aliceToken)).send({}).expect(400));
        check(
          'put',
          ITEM,
          await t.http.put(`${BLOGS}/0`).set('Authorization', bearer(aliceToken)).send(BODY).expect(400),
        );
        check('put', ITEM, await t.http.put(path).send(BODY).expect(401));
        check(
          'put',
          ITEM,
          await t.http
            .put(path)
            .set('Authorization', bearer(t.token('bob')))
            .send(BODY)
            .expect(403),
        );
        check(
          'put',
          ITEM,
          await t.http.put(`${BLOGS}/2147483647`).set('Authorization', bearer(aliceToken)).send(BODY).expect(404),
        );
        const tooLarge = await t.http
          .put(path)
          .set('Authorization', bearer(aliceToken))
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ ...BODY, content: 'x'.repeat(MAX_BODY_BYTES) }));
        expect(tooLarge.status).toBe(413);
        check('put', ITEM, tooLarge);
        check(
          'put',
          ITEM,
          await t.http
            .put(path)
            .set('Authorization', bearer(aliceToken))
            .set('Content-Type', 'text/plain')
            .send('x')
            .expect(415),
        );
      });

      it('patch: 200, 400, 401, 403, 404, 412, 413, 415; the body is a merge patch, under either media type', async () => {
        const path = `${BLOGS}/${blogId}`;
        const patch = (token: string | null, type = 'application/merge-patch+json', target = path) => {
          const req = t.http.patch(target).set('Content-Type', type);
          return token === null ? req : req.set('Authorization', bearer(token));
        };
        const body = contract.document.paths[ITEM].patch?.requestBody?.content ?? {};
        expect(Object.keys(body)).toEqual(['application/merge-patch+json', 'application/json']);
        const bodySchema =
          '/paths/~1api~1v1~1blogs~1{id}/patch/requestBody/content/application~1merge-patch+json/schema';
        expect(contract.errorsOf(bodySchema, { title: 'Only this' })).toEqual([]);
        expect(contract.errorsOf(bodySchema, {}).length).toBeGreaterThan(0);
        expect(contract.errorsOf(bodySchema, { title: null }).length).toBeGreaterThan(0);
        expect(contract.errorsOf(bodySchema, { id: 1 }).length).toBeGreaterThan(0);

        check('patch', ITEM, await patch(aliceToken).send('{"title":"Patched"}').expect(200));
        check('patch', ITEM, await patch(aliceToken, 'application/json').send('{"author":"Ann"}').expect(200));
        check('patch', ITEM, await patch(aliceToken).send('{}').expect(400));
        check('patch', ITEM, await patch(aliceToken).send('{"title":null}').expect(400));
        check('patch', ITEM, await patch(null).send('{"title":"x"}').expect(401));
        check('patch', ITEM, await patch(t.token('bob')).send('{"title":"x"}').expect(403));
        check(
          'patch',
          ITEM,
          await patch(aliceToken, undefined, `${BLOGS}/2147483647`).send('{"title":"x"}').expect(404),
        );
        check('patch', ITEM, await patch(aliceToken).set('If-Match', '"stale"').send('{"title":"x"}').expect(412));
        check(
          'patch',
          ITEM,
          await patch(aliceToken)
            .send(JSON.stringify({ content: 'x'.repeat(MAX_BODY_BYTES) }))
            .expect(413),
        );
        check('patch', ITEM, await patch(aliceToken, 'text/plain').send('x').expect(415));
      });

      it('delete: 204 without a body, 400, 401, 403, 404, 412', async () => {
        const doomed = (await createBlog(t, 'alice')).body.id;
        const remove = (id: number | string, token: string | null = aliceToken) => {
          const req = t.http.delete(`${BLOGS}/${id}`);
          return token === null ? req : req.set('Authorization', bearer(token));
        };

        check('delete', ITEM, await remove('abc').expect(400));
        check('delete', ITEM, await remove(doomed, null).expect(401));
        check('delete', ITEM, await remove(doomed, t.token('bob')).expect(403));
        check('delete', ITEM, await remove(doomed).set('If-Match', '"stale"').expect(412));
        check('delete', ITEM, await remove(doomed).expect(204));
        check('delete', ITEM, await remove(doomed).expect(404));
      });

      it('health and metrics answer as documented', async () => {
        check('get', '/health/live', await t.http.get('/health/live').expect(200));
        check('get', '/health/ready', await t.http.get('/health/ready').expect(200));
        check('get', '/metrics', await t.http.get('/metrics').expect(200));
      });
    });
  });

  describe('with READS_REQUIRE_AUTH=true', () => {
    const secured = useTestApp({ READS_REQUIRE_AUTH: 'true' }, { database });

    it('list and read: 401 without a token, documented; the docs stay public', async () => {
      check401('get', COLLECTION, await secured.http.get(BLOGS).expect(401));
      check401('get', ITEM, await secured.http.get(`${BLOGS}/${blogId}`).expect(401));
      await secured.http.get('/api/docs-json').expect(200);
    });

    function check401(method: OpenApiMethod, path: string, res: Parameters<OpenApiContract['expectDocumented']>[2]) {
      contract.expectDocumented(method, path, res);
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });
});

import { createHmac, generateKeyPairSync } from 'node:crypto';
import {
  bearer,
  BLOG_FIELDS,
  BLOGS,
  BODY,
  countBlogs,
  createBlog,
  expectJsonError,
  expectUnauthorized,
  StoredBlog,
  storedBlog,
} from './support/blog-api';
import { TEST_JWT_SECRET, TestApp, useTestApp, useTestDatabase } from './support/test-app';

// Bearer tokens on writes (and on reads when READS_REQUIRE_AUTH=true), 401 + WWW-Authenticate for
// every token problem, owner-or-admin updates. The apps of this file run one after another on one
// database.

const OTHER_SECRET = 'another-secret-that-the-service-does-not-know-0123456789';
const ISSUER = 'https://idp.example';
const AUDIENCE = 'blogs';

const now = (): number => Math.floor(Date.now() / 1000);
const b64url = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The stored row of blog `id`, which must exist. */
async function storedRow(t: TestApp, id: number): Promise<StoredBlog> {
  const row = await storedBlog(t, id);
  expect(row).toBeDefined();
  return row as StoredBlog;
}

const database = useTestDatabase();

/** A token problem: how to build the `Authorization` header (undefined: no header). */
interface BadToken {
  readonly name: string;
  readonly header: (t: TestApp) => string | undefined;
}

/** A bad `Authorization` header that is always sent. */
interface MalformedHeader extends BadToken {
  readonly header: (t: TestApp) => string;
}

const { privateKey: rsaPrivateKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

/** An HS256 JWS over `payload` and `header` taken as raw text, signed with the test secret. */
function signRawPayload(payload: string, header = '{"alg":"HS256","typ":"JWT"}'): string {
  const segment = (text: string): string => Buffer.from(text, 'utf8').toString('base64url');
  const input = `${segment(header)}.${segment(payload)}`;
  return `${input}.${createHmac('sha256', TEST_JWT_SECRET).update(input).digest('base64url')}`;
}

const BAD_TOKENS: readonly BadToken[] = [
  { name: 'no Authorization header', header: () => undefined },
  { name: 'Basic scheme', header: () => `Basic ${Buffer.from('alice:password').toString('base64')}` },
  { name: 'Bearer scheme with no token', header: () => 'Bearer' },
  { name: 'valid token without a scheme', header: (t) => t.token('alice') },
  { name: 'malformed token (not a JWT)', header: () => 'Bearer not-a-jwt' },
  { name: 'malformed token (three garbage segments)', header: () => 'Bearer abc.def.ghi' },
  // Correctly signed, but a Claims Set must be a JSON object (RFC 7519 §7.2); jsonwebtoken throws
  // a TypeError on these, which once surfaced as a 500.
  { name: 'signed payload null', header: () => `Bearer ${signRawPayload('null')}` },
  { name: 'signed payload a JSON array', header: () => `Bearer ${signRawPayload('[1,2]')}` },
  { name: 'signed payload a JSON string', header: () => `Bearer ${signRawPayload('"alice"')}` },
  {
    name: 'bad signature (signed with another secret)',
    header: (t) => `Bearer ${t.sign({ sub: 'alice' }, { expiresIn: '1h' }, OTHER_SECRET)}`,
  },
  {
    name: 'payload changed after signing',
    header: (t) => {
      const [header, , signature] = t.token('alice').split('.');
      return `Bearer ${header}.${b64url({ sub: 'mallory', scope: 'blogs:admin', exp: now() + 3600 })}.${signature}`;
    },
  },
  {
    name: 'alg none (unsigned token)',
    header: () =>
      `Bearer ${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ sub: 'alice', iat: now(), exp: now() + 3600 })}.`,
  },
  {
    name: 'another algorithm: HS512 with the same secret',
    header: (t) => `Bearer ${t.sign({ sub: 'alice' }, { algorithm: 'HS512', expiresIn: '1h' })}`,
  },
  {
    name: 'another algorithm: RS256 with a generated key pair',
    header: (t) => `Bearer ${t.sign({ sub: 'alice' }, { algorithm: 'RS256', expiresIn: '1h' }, rsaPrivateKey)}`,
  },
  {
    name: 'expired: exp 60 s ago (beyond the 30 s tolerance)',
    header: (t) => `Bearer ${t.sign({ sub: 'alice', iat: now() - 3600, exp: now() - 60 })}`,
  },
  {
    name: 'not yet valid: nbf 60 s ahead (beyond the 30 s tolerance)',
    header: (t) => `Bearer ${t.sign({ sub: 'alice', nbf: now() + 60, exp: now() + 3600 })}`,
  },
  { name: 'no exp claim', header: (t) => `Bearer ${t.sign({ sub: 'alice' })}` },
  { name: 'no sub claim', header: (t) => `Bearer ${t.sign({ scope: 'blogs:admin' }, { expiresIn: '1h' })}` },
  { name: 'empty sub claim', header: (t) => `Bearer ${t.sign({ sub: '' }, { expiresIn: '1h' })}` },
  { name: 'numeric sub claim', header: (t) => `Bearer ${t.sign({ sub: 12345 }, { expiresIn: '1h' })}` },
  // JSON numbers beyond a double parse as Infinity: such a token would never expire.
  { name: 'exp 1e400', header: () => `Bearer ${signRawPayload('{"sub":"alice","exp":1e400}')}` },
  { name: 'nbf -1e400', header: () => `Bearer ${signRawPayload(`{"sub":"alice","exp":${now() + 60},"nbf":-1e400}`)}` },
  { name: 'iat 1e400', header: () => `Bearer ${signRawPayload(`{"sub":"alice","exp":${now() + 60},"iat":1e400}`)}` },
  // Lone surrogates would be stored as U+FFFD, so different subs would own the same blogs.
  {
    name: 'sub a lone high surrogate',
    header: () => `Bearer ${signRawPayload(`{"sub":"\\ud800","exp":${now() + 60}}`)}`,
  },
  {
    name: 'sub a lone low surrogate',
    header: () => `Bearer ${signRawPayload(`{"sub":"\\udc00","exp":${now() + 60}}`)}`,
  },
  { name: 'sub with U+0000', header: () => `Bearer ${signRawPayload(`{"sub":"a\\u0000b","exp":${now() + 60}}`)}` },
  {
    name: 'a crit header parameter (RFC 7515 §4.1.11)',
    header: () =>
      `Bearer ${signRawPayload(`{"sub":"alice","exp":${now() + 60}}`, '{"alg":"HS256","typ":"JWT","crit":["exp"],"exp":1}')}`,
  },
  ...malformedHeaders(),
];

/**
 * `Authorization` values that carry a valid token but are not `Bearer 1*SP b64token` with nothing
 * after it (RFC 6750 §2.1): passport-jwt's own extractor took the first word and accepted them.
 */
function malformedHeaders(): MalformedHeader[] {
  return [
    { name: 'garbage after a valid token', header: (t) => `Bearer ${t.token('alice')} trailing-garbage` },
    { name: 'a second token after a valid token', header: (t) => `Bearer ${t.token('alice')} ${t.token('bob')}` },
    { name: 'auth-params after a valid token', header: (t) => `Bearer ${t.token('alice')}, realm="blogs"` },
    { name: 'a tab between the scheme and a valid token', header: (t) => `Bearer\t${t.token('alice')}` },
    { name: 'a valid token with a character outside b64token appended', header: (t) => `Bearer ${t.token('alice')}!` },
  ];
}

describe('authentication with the default configuration', () => {
  const t = useTestApp({}, { database });
  let aliceBlogId: number;

  beforeAll(async () => {
    aliceBlogId = (await createBlog(t, 'alice')).body.id;
  });

  describe.each(BAD_TOKENS)('a write with a token problem: $name', ({ header }) => {
    it('create answers 401 with the JSON error body and WWW-Authenticate: Bearer, and stores nothing', async () => {
      const before = await countBlogs(t);
      const value = header(t);
      const req = t.http.post(BLOGS);
      if (value !== undefined) req.set('Authorization', value);
      const res = await req.send(BODY);
      expectUnauthorized(res);
      expect(await countBlogs(t)).toBe(before);
    });

    it('update answers 401 with the JSON error body and WWW-Authenticate: Bearer, and changes nothing', async () => {
      const before = await storedRow(t, aliceBlogId);
      const value = header(t);
      const req = t.http.put(`${BLOGS}/${aliceBlogId}`);
      if (value !== undefined) req.set('Authorization', value);
      const res = await req.send({ title: 'changed', content: 'changed', author: 'changed' });
      expectUnauthorized(res);
      expect(await storedRow(t, aliceBlogId)).toEqual(before);
    });
  });

  describe.each(malformedHeaders())('a malformed Authorization header: $name', ({ header }) => {
    it('create answers 401 with WWW-Authenticate: Bearer error="invalid_token" and stores nothing', async () => {
      const before = await countBlogs(t);
      const res = await t.http.post(BLOGS).set('Authorization', header(t)).send(BODY);
      expectUnauthorized(res);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(await countBlogs(t)).toBe(before);
    });

    it('update answers 401 with WWW-Authenticate: Bearer error="invalid_token" and changes nothing', async () => {
      const before = await storedRow(t, aliceBlogId);
      const res = await t.http
        .put(`${BLOGS}/${aliceBlogId}`)
        .set('Authorization', header(t))
        .send({ ...BODY, title: 'changed' });
      expectUnauthorized(res);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
      expect(await storedRow(t, aliceBlogId)).toEqual(before);
    });
  });

  describe('tokens that are valid', () => {
    it.each([
      ['several spaces between the scheme and the token (RFC 6750 §2.1: 1*SP)', () => `Bearer   ${t.token('alice')}`],
      [
        'exp 10 s in the past (30 s clock tolerance)',
        () => bearer(t.sign({ sub: 'alice', iat: now() - 3600, exp: now() - 10 })),
      ],
      [
        'nbf 10 s in the future (30 s clock tolerance)',
        () => bearer(t.sign({ sub: 'alice', nbf: now() + 10, exp: now() + 3600 })),
      ],
    ])('%s: accepted, 201', async (_name, header) => {
      await t.http.post(BLOGS).set('Authorization', header()).send(BODY).expect(201);
    });

    it.each(['bearer', 'BEARER', 'Bearer', 'bEaReR'])(
      'the scheme name is case-insensitive: "%s" is accepted',
      async (scheme) => {
        const before = await countBlogs(t);
        const res = await t.http
          .post(BLOGS)
          .set('Authorization', `${scheme} ${t.token('alice')}`)
          .send(BODY);
        expect(res.status).toBe(201);
        expect(await countBlogs(t)).toBe(before + 1);
        await t.http
          .put(`${BLOGS}/${aliceBlogId}`)
          .set('Authorization', `${scheme} ${t.token('alice')}`)
          .send(BODY)
          .expect(200);
      },
    );
  });

  describe('the token is checked before anything else on a write', () => {
    it.each([
      ['PUT with a malformed id and no token is 401, not 400', () => t.http.put(`${BLOGS}/abc`).send(BODY)],
      [
        'PUT on a blog that does not exist, without a token, is 401, not 404',
        () => t.http.put(`${BLOGS}/2147483647`).send(BODY),
      ],
      [
        'POST with a wrong content type and no token is 401, not 415',
        () => t.http.post(BLOGS).set('Content-Type', 'text/plain').send('hello'),
      ],
      ['POST with an invalid body and no token is 401, not 400', () => t.http.post(BLOGS).send({ title: 5 })],
      [
        'PUT on a blog of someone else with an expired token is 401, not 403',
        () =>
          t.http
            .put(`${BLOGS}/${aliceBlogId}`)
            .set('Authorization', bearer(t.sign({ sub: 'bob', iat: now() - 3600, exp: now() - 60 })))
            .send(BODY),
      ],
    ])('%s', async (_name, send) => {
      expectUnauthorized(await send());
    });
  });

  describe('ownership', () => {
    let blogId: number;

    beforeEach(async () => {
      blogId = (await createBlog(t, 'alice', { title: 'Owned by alice', content: 'original', author: 'Alice' })).body
        .id;
    });

    it('the creator (same sub) may update the blog: 200', async () => {
      const res = await t.http
        .put(`${BLOGS}/${blogId}`)
        .set('Authorization', bearer(t.token('alice')))
        .send({ title: 'new title', content: 'new content', author: 'new author' })
        .expect(200);
      expect(res.body).toMatchObject({ id: blogId, title: 'new title', content: 'new content', author: 'new author' });
      expect(await storedRow(t, blogId)).toMatchObject({ title: 'new title', ownerSub: 'alice' });
    });

    it("the creator's sub is stored as owner and never shown in responses", async () => {
      expect(await storedRow(t, blogId)).toMatchObject({ ownerSub: 'alice' });
      const read = await t.http.get(`${BLOGS}/${blogId}`).expect(200);
      expect(Object.keys(read.body).sort()).toEqual(BLOG_FIELDS);
    });

    it('another sub gets 403 with the JSON error body, and the blog is unchanged', async () => {
      const before = await storedRow(t, blogId);
      const res = await t.http
        .put(`${BLOGS}/${blogId}`)
        .set('Authorization', bearer(t.token('bob', { scope: 'blogs:read blogs:write' })))
        .send({ title: 'hijacked', content: 'hijacked', author: 'Bob' });
      expectJsonError(res, 403);
      // Ownership is the token's sub, not the blog's author field.
      expect(res.body.message).toBe(
        'Only the owner of this blog (the token subject that created it) or a blogs:admin token may update it',
      );
      expect(await storedRow(t, blogId)).toEqual(before);
      const read = await t.http.get(`${BLOGS}/${blogId}`).expect(200);
      expect(read.body).toMatchObject({ title: 'Owned by alice', content: 'original', author: 'Alice' });
    });

    it('a sub that only differs in case is another sub: 403', async () => {
      const res = await t.http
        .put(`${BLOGS}/${blogId}`)
        .set('Authorization', bearer(t.token('Alice')))
        .send(BODY);
      expect(res.status).toBe(403);
    });

    it.each(['blogs:admin', 'blogs:read blogs:admin', 'blogs:admin blogs:read', 'openid blogs:admin'])(
      'a token whose scope "%s" contains blogs:admin may update anyone\'s blog: 200',
      async (scope) => {
        const res = await t.http
          .put(`${BLOGS}/${blogId}`)
          .set('Authorization', bearer(t.token('bob', { scope })))
          .send({ title: 'moderated', content: 'moderated', author: 'Alice' });
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: blogId, title: 'moderated' });
        // the owner stays the creator
        expect(await storedRow(t, blogId)).toMatchObject({ title: 'moderated', ownerSub: 'alice' });
      },
    );

    it.each([
      'blogs:administrator',
      'blogs:admins',
      'myblogs:admin',
      'blogs:admin:read',
      'blogs:read,blogs:admin',
      'blogs:read blogs:administrator',
      'blogs',
      'admin',
    ])('a scope "%s" (blogs:admin only as part of another word) does not count: 403', async (scope) => {
      const before = await storedRow(t, blogId);
      const res = await t.http
        .put(`${BLOGS}/${blogId}`)
        .set('Authorization', bearer(t.token('bob', { scope })))
        .send({ title: 'hijacked', content: 'hijacked', author: 'Bob' });
      expectJsonError(res, 403);
      expect(await storedRow(t, blogId)).toEqual(before);
    });
  });

  describe('reads need no token and ignore the Authorization header', () => {
    const readHeaders: readonly [string, (t: TestApp) => string | undefined][] = [
      ['no header', () => undefined],
      ['a garbage token', () => 'Bearer garbage'],
      ['an expired token', (tt) => `Bearer ${tt.sign({ sub: 'alice', iat: now() - 7200, exp: now() - 3600 })}`],
      [
        'a token signed with another secret',
        (tt) => `Bearer ${tt.sign({ sub: 'alice' }, { expiresIn: '1h' }, OTHER_SECRET)}`,
      ],
      ['a Basic header', () => 'Basic Zm9vOmJhcg=='],
      ['a Bearer scheme with no token', () => 'Bearer'],
    ];

    it.each(readHeaders)('GET /api/v1/blogs with %s: 200', async (_name, header) => {
      const value = header(t);
      const req = t.http.get(BLOGS);
      if (value !== undefined) req.set('Authorization', value);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body.total).toBeGreaterThanOrEqual(1);
      expect(res.headers['www-authenticate']).toBeUndefined();
    });

    it.each<[string, (tt: TestApp) => string | undefined, string]>([
      ['no header', () => undefined, 'Bearer'],
      ['a garbage token', () => 'Bearer garbage', 'Bearer error="invalid_token"'],
      [
        'an expired token',
        (tt) => `Bearer ${tt.sign({ sub: 'alice', iat: now() - 7200, exp: now() - 3600 })}`,
        'Bearer error="invalid_token"',
      ],
    ])(
      'GET /api/v1/blogs?status=draft, which needs the caller, with %s: 401 with that challenge',
      async (_name, header, challenge) => {
        const value = header(t);
        const req = t.http.get(`${BLOGS}?status=draft`);
        if (value !== undefined) req.set('Authorization', value);
        const res = await req;
        expectUnauthorized(res);
        expect(res.headers['www-authenticate']).toBe(challenge);
      },
    );

    it.each(readHeaders)('GET /api/v1/blogs/:id with %s: 200', async (_name, header) => {
      const value = header(t);
      const req = t.http.get(`${BLOGS}/${aliceBlogId}`);
      if (value !== undefined) req.set('Authorization', value);
      const res = await req;
      expect(res.status).toBe(200);
      expect(res.body.id).toBe(aliceBlogId);
    });
  });

  describe('health checks need no token', () => {
    it.each(['/health/live', '/health/ready'])('GET %s answers 200 without a token', async (path) => {
      await t.http.get(path).expect(200);
    });

    it.each(['/health/live', '/health/ready'])('GET %s answers 200 with a garbage token', async (path) => {
      await t.http.get(path).set('Authorization', 'Bearer garbage').expect(200);
    });
  });
});

describe('authentication with JWT_ISSUER and JWT_AUDIENCE configured', () => {
  const t = useTestApp({ JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE }, { database });

  it.each([
    ['wrong iss', { issuer: 'https://evil.example', audience: AUDIENCE }],
    ['missing iss', { audience: AUDIENCE }],
    ['wrong aud', { issuer: ISSUER, audience: 'other-api' }],
    ['missing aud', { issuer: ISSUER }],
    ['neither iss nor aud', {}],
  ])('a token with %s is 401 on create and update, and nothing is stored', async (_name, options) => {
    const token = t.sign({ sub: 'alice' }, { expiresIn: '1h', ...options });
    const before = await countBlogs(t);
    expectUnauthorized(await t.http.post(BLOGS).set('Authorization', bearer(token)).send(BODY));
    expectUnauthorized(await t.http.put(`${BLOGS}/1`).set('Authorization', bearer(token)).send(BODY));
    expect(await countBlogs(t)).toBe(before);
  });

  it('a token with the right iss and aud is accepted: 201 on create, 200 on update', async () => {
    const token = t.sign({ sub: 'carol' }, { expiresIn: '1h', issuer: ISSUER, audience: AUDIENCE });
    const created = await t.http.post(BLOGS).set('Authorization', bearer(token)).send(BODY).expect(201);
    await t.http.put(`${BLOGS}/${created.body.id}`).set('Authorization', bearer(token)).send(BODY).expect(200);
  });

  it('a token minted by the harness (with iss and aud) is accepted: 201', async () => {
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('carol')))
      .send(BODY)
      .expect(201);
  });
});

describe('authentication with READS_REQUIRE_AUTH=true', () => {
  const t = useTestApp({ READS_REQUIRE_AUTH: 'true' }, { database });
  let blogId: number;

  beforeAll(async () => {
    blogId = (await createBlog(t, 'alice')).body.id;
  });

  it.each([
    ['GET /api/v1/blogs', () => BLOGS],
    ['GET /api/v1/blogs/:id', () => `${BLOGS}/${blogId}`],
  ])('%s without a token is 401 with WWW-Authenticate', async (_name, path) => {
    expectUnauthorized(await t.http.get(path()));
  });

  it.each([
    ['garbage', () => 'Bearer garbage'],
    ['expired', () => `Bearer ${t.sign({ sub: 'alice', iat: now() - 3600, exp: now() - 60 })}`],
    ['signed with another secret', () => `Bearer ${t.sign({ sub: 'alice' }, { expiresIn: '1h' }, OTHER_SECRET)}`],
  ])('reads with a token %s are 401', async (_name, header) => {
    expectUnauthorized(await t.http.get(BLOGS).set('Authorization', header()));
    expectUnauthorized(await t.http.get(`${BLOGS}/${blogId}`).set('Authorization', header()));
  });

  it('reads with a valid token followed by garbage are 401 with Bearer error="invalid_token"', async () => {
    const header = `Bearer ${t.token('dave')} trailing-garbage`;
    for (const path of [BLOGS, `${BLOGS}/${blogId}`]) {
      const res = await t.http.get(path).set('Authorization', header);
      expectUnauthorized(res);
      expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    }
  });

  it('reads with a valid token are 200', async () => {
    const auth = bearer(t.token('dave'));
    const list = await t.http.get(BLOGS).set('Authorization', auth).expect(200);
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    const read = await t.http.get(`${BLOGS}/${blogId}`).set('Authorization', auth).expect(200);
    expect(read.body.id).toBe(blogId);
  });

  it.each(['/health/live', '/health/ready'])('GET %s still answers 200 without a token', async (path) => {
    await t.http.get(path).expect(200);
  });
});

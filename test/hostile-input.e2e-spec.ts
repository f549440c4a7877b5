import fc from 'fast-check';
import { Agent, request as httpRequest, STATUS_CODES } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { BLOG_FIELDS, BLOGS, BODY, bearer, INT4_MAX, ISO_UTC_MS } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { PROBLEM_CONTENT_TYPE, problemMembers } from './support/problem';

// Property-based tests (fast-check) against the real app over real HTTP. Arbitrary
// JSON bodies (deep nesting, huge numbers, prototype keys, Unicode edge cases including lone
// surrogates), raw bytes, ids, query strings and headers. Properties: never a 5xx, never a crash
// (the app answers /health/live afterwards), every response is the JSON error body or a
// valid blog / list envelope, and every accepted create or update reads back identical.
//
// FUZZ_RUNS sets the total number of cases (`npm run test:fuzz` runs 10,000); `npm test` runs
// 300. FUZZ_SEED replays a failing run (fast-check prints its seed and path). Rate limits are
// off: this is about input, not volume.

const TOTAL_RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** Share of the cases each property gets; they add up to 1. */
const SHARE = {
  create: 0.2,
  changes: 0.05,
  webhooks: 0.05,
  update: 0.15,
  ids: 0.15,
  query: 0.1,
  headers: 0.1,
  bytes: 0.05,
  keys: 0.1,
  tags: 0.05,
} as const;
const runsFor = (share: number): number => Math.max(1, Math.round(TOTAL_RUNS * share));
/** Jest's time limit for a property of `share`: 60 s, or 50 ms a case when that is more. */
const timeoutFor = (share: number): number => Math.max(60_000, runsFor(share) * 50);

/** Cases run so far (all properties), and writes accepted, reported at the end. */
let casesRun = 0;
let acceptedCreates = 0;
let acceptedUpdates = 0;

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });
let owner: string;
let ownedId: number;
let embedded: boolean;

afterAll(() => {
  agent.destroy();
});

const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });

beforeAll(async () => {
  port = await t.listen();
  embedded = t.database.kind === 'embedded';
  owner = bearer(t.token('fuzzer'));
  ownedId = (await t.http.post(BLOGS).set('Authorization', owner).send(BODY).expect(201)).body.id;
});

afterAll(() => {
  console.log(
    `hostile input: ${casesRun} cases run (FUZZ_RUNS=${TOTAL_RUNS}); ${acceptedCreates} creates and ${acceptedUpdates} updates accepted and read back`,
  );
});

/** `path` with what Node.js refuses to send (spaces, controls, non-ASCII) percent-encoded as UTF-8. */
const sendable = (path: string): string =>
  path.replace(/[^\x21-\x7e]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
  );

// A header case may ask for a compressed answer (`Accept-Encoding`): the checks read the text as a client would.
const DECODERS: Readonly<Record<string, (body: Buffer) => Buffer>> = {
  gzip: gunzipSync,
  deflate: inflateSync,
  br: brotliDecompressSync,
};

/** One request over a keep-alive connection; the body is sent as given (text as UTF-8, or bytes), the answer decoded. */
function send(
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path: sendable(path),
        agent,
        headers: { ...headers, ...(payload ? { 'Content-Length': String(payload.length) } : {}) },
        timeout: 20_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const encoding = res.headers['content-encoding'];
          const raw = Buffer.concat(chunks);
          const decoded = encoding === undefined ? raw : DECODERS[encoding](raw);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: decoded.toString('utf8') });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within 20 s: ${method} ${path}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

const json = (reply: Reply, type: RegExp = /^application\/json(;|$)/): unknown => {
  expect(reply.headers['content-type']).toMatch(type);
  return JSON.parse(reply.text);
};

/**
 * The error body for `reply.status`: exactly the problem details members, with `errors` on a validation-error; as
 * `application/problem+json`, or `application/json` when the request's `accept` names that type.
 */
function expectErrorBody(reply: Reply, accept?: string): void {
  expect(reply.status).toBeGreaterThanOrEqual(400);
  expect(reply.status).toBeLessThan(500);
  const asksForJson = /application\/json/i.test(accept ?? '');
  const body = json(reply, asksForJson ? /^application\/(problem\+)?json(;|$)/ : PROBLEM_CONTENT_TYPE) as Record<
    string,
    unknown
  >;
  expect(Object.keys(body).sort()).toEqual(problemMembers(body));
  expect(body.statusCode).toBe(reply.status);
  expect(body.error).toBe(STATUS_CODES[reply.status]);
  const messages = Array.isArray(body.message) ? body.message : [body.message];
  expect(messages.length).toBeGreaterThan(0);
  for (const m of messages) expect(typeof m === 'string' && m.length > 0).toBe(true);
}

type Blog = {
  id: number;
  title: string;
  content: string;
  author: string;
  createdAt: string;
  updatedAt: string;
  status: string;
  publishedAt: string | null;
  slug: string;
  tags: string[];
};

function expectBlog(value: unknown): asserts value is Blog {
  const blog = value as Record<string, unknown>;
  expect(Object.keys(blog).sort()).toEqual(BLOG_FIELDS);
  expect(Number.isSafeInteger(blog.id) && (blog.id as number) > 0).toBe(true);
  for (const f of ['title', 'content', 'author']) expect(typeof blog[f]).toBe('string');
  expect(blog.createdAt).toMatch(ISO_UTC_MS);
  expect(blog.updatedAt).toMatch(ISO_UTC_MS);
  expect(['draft', 'scheduled', 'published']).toContain(blog.status);
  if (blog.status === 'draft') expect(blog.publishedAt).toBeNull();
  else expect(blog.publishedAt).toMatch(ISO_UTC_MS);
  expect(blog.slug).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
  expect(Array.isArray(blog.tags) && (blog.tags as unknown[]).every((tag) => typeof tag === 'string')).toBe(true);
}

function expectEnvelope(value: unknown): void {
  const envelope = value as Record<string, unknown>;
  expect(Object.keys(envelope).sort()).toEqual(['data', 'limit', 'nextCursor', 'offset', 'total', 'totalRelation']);
  for (const blog of envelope.data as unknown[]) expectBlog(blog);
}

/** The operations the arbitrary-headers property sends. */
const HEADER_OPERATIONS = ['GET list', 'GET one', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Never a 5xx; a 2xx is checked by `success`, anything else must be the error body for a request with `accept`. */
async function expectAnswer(
  reply: Reply,
  success: (body: unknown) => void | Promise<void>,
  accept?: string,
): Promise<void> {
  if (reply.status >= 500) throw new Error(`${reply.status}: ${reply.text}`);
  if (reply.status >= 200 && reply.status < 300) await success(json(reply));
  else expectErrorBody(reply, accept);
}

// ---- generators -------------------------------------------------------------------------------

/** Single UTF-16 code units no UTF-8 text can carry. */
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit));

/** Characters validators trip over: NUL, controls, Unicode white space, BOM, joiners, combining marks, emoji. */
const awkwardChar = fc.constantFrom(
  '\u0000',
  '\u0001',
  '\t',
  '\n',
  '\r',
  ' ',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u200d',
  '\u0301',
  '\ufe0f',
  '😀',
  '👩‍👩‍👧',
  '"',
  '\\',
  '<',
  '\u{10ffff}',
  '\ufffd',
  '\uffff',
);

const hostileChar = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 3, arbitrary: awkwardChar },
  { weight: 1, arbitrary: loneSurrogate },
);

/** Strings around the field limits (0, 1, 100, 200, 100,000 characters) made of hostile characters. */
const hostileString = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }) },
  { weight: 4, arbitrary: fc.string({ unit: hostileChar, maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(0, 1, 99, 100, 101, 199, 200, 201)
      .chain((n) => fc.string({ unit: hostileChar, minLength: n, maxLength: n })),
  },
  { weight: 1, arbitrary: fc.constantFrom(99_999, 100_000, 100_001).chain((n) => hostileChar.map((c) => c.repeat(n))) },
);

/** Property names objects are attacked with. */
const protoKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  'valueOf',
  'id',
  'createdAt',
  'ownerSub',
  '',
);

/** JSON text of an object, keys as given (JSON.stringify would drop a `__proto__` key of a literal). */
const objectText = (entries: readonly (readonly [string, string])[]): string =>
  `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;

/** Numbers JSON allows but JavaScript and PostgreSQL may not hold. */
const hugeNumberText = fc.constantFrom(
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.0',
  '123456789012345678901234567890',
  '9007199254740993',
  '2147483648',
  '1E+2',
  '-2147483649',
);

/** A JSON value as text: any JSON, numbers at the edges, or the body fields' names with odd values. */
const valueText: fc.Arbitrary<string> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  hugeNumberText,
  hostileString.map((s) => JSON.stringify(s)),
);

/** `arbitrary` one time in four, else undefined. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });

/** Values of the publishing properties: valid ones (instants far from now, so no status changes while a case runs), and not. */
const publishingValue = fc.oneof(
  valueText,
  fc.constantFrom(
    '"draft"',
    '"published"',
    '"scheduled"',
    '"Draft"',
    'null',
    '"2020-01-01T00:00:00Z"',
    '"9999-12-31T23:59:59.999Z"',
    '"1969-12-31T23:59:59.999Z"',
    '"2026-13-01T00:00:00Z"',
    '"2020-01-01T00:00:00"',
    '"hello-world"',
    '"Hello"',
    '"a--b"',
    `"${'a'.repeat(201)}"`,
    '[]',
    '["NestJS","nestjs","Node.js"]',
    '["!!!"]',
    '[""]',
    '[" "]',
    '["a\\u0000b"]',
    `[${Array.from({ length: 21 }, (_, i) => `"t${i}"`).join(',')}]`,
    `["${'x'.repeat(51)}"]`,
    '[1]',
    '[null]',
    '"NestJS"',
    '{"a":"b"}',
  ),
);

/** Bodies close to valid: the three fields with hostile strings, sometimes one replaced, missing or extra, and publishing properties. */
const nearlyValidBody = fc
  .record({
    title: hostileString,
    content: hostileString,
    author: hostileString,
    change: sometimes(
      fc.tuple(fc.constantFrom('title', 'content', 'author'), fc.option(valueText, { nil: undefined })),
    ),
    extra: sometimes(fc.tuple(protoKey, valueText)),
    // One body in four has publishing properties: most of their values are refused, and the round trips need some bodies accepted.
    publishing: sometimes(
      fc.array(fc.tuple(fc.constantFrom('status', 'publishedAt', 'slug', 'tags'), publishingValue), {
        minLength: 1,
        maxLength: 4,
      }),
    ),
  })
  .map(({ title, content, author, change, extra, publishing }) => {
    const entries: [string, string][] = [
      ['title', JSON.stringify(title)],
      ['content', JSON.stringify(content)],
      ['author', JSON.stringify(author)],
    ];
    if (change) {
      const at = entries.findIndex(([k]) => k === change[0]);
      if (change[1] === undefined) entries.splice(at, 1);
      else entries[at] = [change[0], change[1]];
    }
    if (extra) entries.push([extra[0], extra[1]]);
    for (const [key, value] of publishing ?? []) if (!entries.some(([k]) => k === key)) entries.push([key, value]);
    return objectText(entries);
  });

/** Arrays or objects nested up to 20,000 deep. */
const deepBody = fc
  .tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean(), fc.boolean())
  .map(([depth, arrays, wrap]) => {
    const inner = arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return wrap
      ? objectText([
          ['title', inner],
          ['content', '"c"'],
          ['author', '"a"'],
        ])
      : inner;
  });

/** A request body as JSON text. */
const bodyText: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: nearlyValidBody },
  { weight: 2, arbitrary: valueText },
  { weight: 1, arbitrary: deepBody },
  { weight: 1, arbitrary: fc.array(fc.tuple(protoKey, valueText), { maxLength: 4 }).map(objectText) },
);

/** A path segment: numbers at and past the id limits, any text percent-encoded, raw escapes. */
const idSegment = fc.oneof(
  fc.constantFrom(
    '1',
    '0',
    '-1',
    '01',
    '1.0',
    '1e3',
    '+1',
    ' 1',
    '2147483647',
    '2147483648',
    '99999999999999999999',
    'NaN',
    'Infinity',
    'null',
    '%00',
    '%ZZ',
    '%C0%AF',
    '%ED%A0%80',
    '%F4%90%80%80',
    '%2e%2e',
    '..',
    '%2F',
    '1%20',
    '1;x',
    '1,2',
    '%',
  ),
  fc.nat().map(String),
  fc.string({ unit: 'binary', maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.uint8Array({ maxLength: 6 }).map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
);

/** A query string: paging at its edges, filters, sort and cursor, unknown and repeated parameters, array and object syntax. */
const queryString = fc
  .array(
    fc.tuple(
      fc.constantFrom(
        'limit',
        'offset',
        'limit[]',
        'offset[a]',
        'LIMIT',
        'sort',
        'q',
        'author',
        'cursor',
        'createdAfter',
        'status',
        'tag',
        '__proto__',
        'constructor[prototype]',
        '',
      ),
      fc.oneof(
        idSegment,
        fc.constantFrom('', '10', '100', '101', '0', '-0', '1e1', ' 5', '5 '),
        fc.constantFrom('-id', 'title', '!!!', '%22a%20b%22', 'a%20or%20-b', '2026-01-01T00:00:00Z', 'A.B'),
        fc.constantFrom('draft', 'scheduled', 'any', 'published', 'publishedAt', '-publishedAt', 'Any'),
        fc.constantFrom('nestjs', 'a,b,c,d,e', 'a,b,c,d,e,f', 'a,,b', 'NestJS', 'a%2Cb', ',', 'x'.repeat(51)),
      ),
    ),
    { maxLength: 4 },
  )
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${v}`).join('&'),
  );

/** A change-feed query string: `after` and `limit` at and past their edges, unknown, repeated and array parameters. */
const changesQueryString = fc
  .array(
    fc.tuple(
      fc.constantFrom('after', 'limit', 'after[]', 'limit[a]', 'AFTER', 'since', '__proto__', ''),
      fc.oneof(
        idSegment,
        fc.constantFrom('', '0', '1', '1000', '1001', '-1', '01', ' 1', '1e3'),
        fc.constantFrom('9223372036854775807', '9223372036854775808', '18446744073709551616', '0x10'),
      ),
    ),
    { maxLength: 3 },
  )
  .map((pairs) =>
    pairs.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${v}`).join('&'),
  );

/** Webhook URLs: every refused kind of address and form, next to public ones (IP literals: no DNS in a fuzz run). */
const webhookUrl = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('https://', 'http://', 'ftp://', 'https://user:pw@', '', '//', 'HTTPS://'),
      fc.constantFrom(
        '93.184.216.34',
        '8.8.8.8',
        '[2606:4700::1111]',
        '127.0.0.1',
        '10.0.0.1',
        '172.16.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '[fd00:ec2::254]',
        '100.64.0.1',
        '0.0.0.0',
        '224.0.0.1',
        '255.255.255.255',
        '192.0.2.1',
        '[::1]',
        '[::]',
        '[::ffff:10.0.0.1]',
        '[64:ff9b::a00:1]',
        '[fe80::1]',
        '[2001:db8::1]',
        '0x7f000001',
        '2130706433',
        '127.1',
        'localhost',
        'host.invalid',
        '',
        '[::1',
        'a b',
      ),
      fc.constantFrom('', '/', '/hook', ':443/x', ':0/', ':99999/', '/?q=1#f', '/\u0000'),
    )
    .map(([scheme, host, rest]) => `${scheme}${host}${rest}`),
  fc.string({ maxLength: 80 }),
);

/** A webhook id segment: the id segments above that name one path segment, and UUIDs (404s). */
const webhookIdSegment = fc.oneof(
  idSegment.filter((id) => id !== '' && !/[/?#]/.test(id) && id !== '.' && id !== '..'),
  fc.uuid(),
);

/** Webhook registration bodies: urls as above, event lists valid and not, wrong types, extra keys. */
const webhookBody = fc.record(
  {
    url: fc.oneof(webhookUrl, fc.constantFrom(null, 42, [], {}, 'x'.repeat(2049))),
    events: fc.oneof(
      fc.subarray(['blog.created', 'blog.updated', 'blog.deleted', 'blog.published']),
      fc.array(fc.constantFrom('blog.created', 'blog.read', '', 'BLOG.CREATED', 'blog.published '), { maxLength: 5 }),
      fc.constantFrom(null, 'blog.created', {}, 1),
    ),
    extra: fc.constantFrom(1, 'x'),
  },
  { requiredKeys: [] },
);

/** Header values Node.js lets a client send: visible Latin-1 and spaces. */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c !== 0x7f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const headerName = fc.constantFrom(
  'Authorization',
  'Content-Type',
  'X-Request-Id',
  'X-Forwarded-For',
  'Accept',
  'Accept-Encoding',
  'Accept-Charset',
  'If-Match',
  'If-None-Match',
  'Idempotency-Key',
  'Origin',
  'Cookie',
  'Content-Encoding',
  'Transfer-Encoding-X',
  'X-Http-Method-Override',
  'Expect-Not',
  'Range',
  'X-Custom',
);
const headers = fc
  .array(
    fc.tuple(
      headerName,
      fc.oneof(
        headerValue,
        fc.constantFrom(
          'Bearer ',
          'Bearer x.y.z',
          'application/json; charset=latin1',
          'application/json;;',
          'gzip',
          'br',
          '*/*',
          '"abc"',
          '1.2.3.4, ::1',
        ),
      ),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => Object.fromEntries(pairs));

/** A body with the three fields and `extra` more keys, some of them long. */
const manyKeysBody = fc
  .tuple(fc.integer({ min: 0, max: 20_000 }), fc.integer({ min: 0, max: 300 }))
  .map(([extra, longest]) => {
    const body: Record<string, unknown> = { ...BODY };
    for (let i = 0; i < extra; i += 1) body[i % 7 === 0 ? `${'k'.repeat(i % longest)}${i}` : String(i)] = i;
    return body;
  });

/** `If-Match` / `If-None-Match` values built from the pieces of entity-tag lists, up to ~3,000 characters. */
const entityTagList = fc
  .array(fc.constantFrom(',', ' ', '\t', 'W/', '"', 'x', '*', '"a"', 'W/"b"', ' , '), { maxLength: 600 })
  .chain((pieces) => fc.integer({ min: 1, max: 20 }).map((repeat) => pieces.join('').repeat(repeat).slice(0, 3_000)));

// The embedded database drops a leading U+FEFF when reading a text back (docs/operations.md, "Known limitation");
// PostgreSQL returns it exactly, so there the round trip is checked without exception.
const storableExactly = (value: Record<string, unknown>): boolean =>
  !embedded ||
  !['title', 'content', 'author'].some((f) => typeof value[f] === 'string' && value[f].startsWith('\ufeff'));

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** fast-check settings for a property of `share`; `examples` run first, whatever the seed. */
const options = <T extends unknown[]>(share: number, examples: T[] = []): fc.Parameters<T> => ({
  numRuns: runsFor(share),
  seed: SEED,
  endOnFailure: true,
  examples,
});

/** A valid body sent first to the create and update properties, so each round trip is run at least once. */
const VALID_BODY_TEXT = JSON.stringify({ ...BODY, title: 'Hostile input: the valid case' });

// ---- properties -------------------------------------------------------------------------------

describe(`hostile input over HTTP (${TOTAL_RUNS} cases in all)`, () => {
  it(
    `POST bodies (${runsFor(SHARE.create)} cases): never 5xx; 201 only for a valid body, and it reads back identical`,
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyText, async (text) => {
          casesRun += 1;
          const sent = parsed(text);
          fc.pre(typeof sent !== 'object' || sent === null || storableExactly(sent as Record<string, unknown>));
          const reply = await send('POST', BLOGS, { Authorization: owner, 'Content-Type': 'application/json' }, text);
          await expectAnswer(reply, async (body) => {
            expect(reply.status).toBe(201);
            expectBlog(body);
            acceptedCreates += 1;
            const input = sent as Record<string, unknown>;
            expect({ title: body.title, content: body.content, author: body.author }).toEqual({
              title: input.title,
              content: input.content,
              author: input.author,
            });
            expect(reply.headers.location).toBe(`/api/v1/blogs/${body.id}`);
            const read = await send('GET', `${BLOGS}/${body.id}`, { Authorization: owner });
            expect(read.status).toBe(200);
            expect(json(read)).toEqual(body);
          });
        }),
        options(SHARE.create, [[VALID_BODY_TEXT]]),
      );
    },
    timeoutFor(SHARE.create),
  );

  it(
    `PUT bodies (${runsFor(SHARE.update)} cases): never 5xx; a rejected update changes nothing, an accepted one reads back identical`,
    async () => {
      await fc.assert(
        fc.asyncProperty(bodyText, async (text) => {
          casesRun += 1;
          const sent = parsed(text);
          fc.pre(typeof sent !== 'object' || sent === null || storableExactly(sent as Record<string, unknown>));
          const before = json(await send('GET', `${BLOGS}/${ownedId}`, { Authorization: owner }));
          const reply = await send(
            'PUT',
            `${BLOGS}/${ownedId}`,
            { Authorization: owner, 'Content-Type': 'application/json' },
            text,
          );
          const after = json(await send('GET', `${BLOGS}/${ownedId}`, { Authorization: owner }));
          await expectAnswer(reply, (body) => {
            expect(reply.status).toBe(200);
            expectBlog(body);
            acceptedUpdates += 1;
            const input = sent as Record<string, unknown>;
            expect({ title: body.title, content: body.content, author: body.author }).toEqual({
              title: input.title,
              content: input.content,
              author: input.author,
            });
            expect(after).toEqual(body);
          });
          if (reply.status !== 200) expect(after).toEqual(before);
        }),
        options(SHARE.update, [[VALID_BODY_TEXT]]),
      );
    },
    timeoutFor(SHARE.update),
  );

  it(
    `ids in GET and PUT paths, slugs in GET by slug and GET /tags/:slug (${runsFor(SHARE.ids)} cases): 200 blog, 301, 400 or 404, never 5xx`,
    async () => {
      await fc.assert(
        fc.asyncProperty(idSegment, fc.constantFrom('put', 'get', 'slug', 'tag'), async (id, operation) => {
          casesRun += 1;
          if (operation === 'tag') {
            const reply = await send('GET', `/api/v1/tags/${id}`);
            // an empty slug is the collection itself: `/api/v1/tags/` lists
            const keys = id === '' ? ['data', 'limit', 'offset', 'total', 'totalRelation'] : ['count', 'name', 'slug'];
            await expectAnswer(reply, (body) => expect(Object.keys(body as object).sort()).toEqual(keys));
            return;
          }
          if (operation === 'slug') {
            const reply = await send('GET', `${BLOGS}/slug/${id}`);
            if (reply.status === 301) expect(reply.headers.location).toMatch(/\/slug\/[a-z0-9-]+$/);
            else await expectAnswer(reply, expectBlog);
            return;
          }
          const put = operation === 'put';
          const reply = put
            ? await send(
                'PUT',
                `${BLOGS}/${id}`,
                { Authorization: owner, 'Content-Type': 'application/json' },
                JSON.stringify(BODY),
              )
            : await send('GET', `${BLOGS}/${id}`);
          // an empty id is the collection itself: `/api/v1/blogs/` lists (GET) or is not served (PUT)
          await expectAnswer(reply, (body) => (id === '' ? expectEnvelope(body) : expectBlog(body)));
        }),
        options(SHARE.ids),
      );
    },
    timeoutFor(SHARE.ids),
  );

  it(
    `list query strings (${runsFor(SHARE.query)} cases): 200 envelope or 400, never 5xx`,
    async () => {
      await fc.assert(
        fc.asyncProperty(queryString, async (query) => {
          casesRun += 1;
          const reply = await send('GET', `${BLOGS}?${query}`);
          await expectAnswer(reply, (body) => expectEnvelope(body));
        }),
        options(SHARE.query),
      );
    },
    timeoutFor(SHARE.query),
  );

  it(
    `change-feed query strings (${runsFor(SHARE.changes)} cases): 200 {data, nextAfter} or 400, never 5xx`,
    async () => {
      const reader = { authorization: bearer(t.token('feed-fuzzer', { scope: 'events:read' })) };
      await fc.assert(
        fc.asyncProperty(changesQueryString, async (query) => {
          casesRun += 1;
          const reply = await send('GET', `/api/v1/changes?${query}`, reader);
          await expectAnswer(reply, (body) => {
            expect(Object.keys(body as object).sort()).toEqual(['data', 'nextAfter']);
          });
        }),
        options(SHARE.changes),
      );
    },
    timeoutFor(SHARE.changes),
  );

  it(
    `webhook registrations and webhook paths (${runsFor(SHARE.webhooks)} cases): 201 only for a public https URL, else 400 and nothing stored; never 5xx`,
    async () => {
      const admin = { authorization: bearer(t.token('hooks-fuzzer', { scope: 'webhooks:admin' })) };
      const count = async (): Promise<number> =>
        (json(await send('GET', '/api/v1/webhooks', admin)) as { data: unknown[] }).data.length;
      await fc.assert(
        fc.asyncProperty(webhookBody, webhookIdSegment, async (body, id) => {
          casesRun += 1;
          const before = await count();
          const created = await send(
            'POST',
            '/api/v1/webhooks',
            { ...admin, 'Content-Type': 'application/json' },
            JSON.stringify(body),
          );
          await expectAnswer(created, async (answer) => {
            expect(created.status).toBe(201);
            expect(body.url as string).toMatch(
              /^https:\/\/(93\.184\.216\.34|8\.8\.8\.8|\[2606:4700::1111\])([/:?#]|$)/i,
            );
            expect(Object.keys(answer as object).sort()).toEqual([
              'createdAt',
              'disabledAt',
              'events',
              'id',
              'secret',
              'url',
            ]);
            expect(await send('DELETE', `/api/v1/webhooks/${(answer as { id: string }).id}`, admin)).toMatchObject({
              status: 204,
            });
          });
          if (created.status !== 201) expect(await count()).toBe(before);
          for (const path of [`/api/v1/webhooks/${id}`, `/api/v1/webhooks/${id}/deliveries`]) {
            const reply = await send('GET', path, admin);
            expect([400, 404]).toContain(reply.status);
            expectErrorBody(reply);
          }
        }),
        options(SHARE.webhooks),
      );
    },
    timeoutFor(SHARE.webhooks),
  );

  it(
    `arbitrary headers on reads and writes (${runsFor(SHARE.headers)} cases): never 5xx, valid answers`,
    async () => {
      await fc.assert(
        fc.asyncProperty(headers, fc.constantFrom(...HEADER_OPERATIONS), async (extra, op) => {
          casesRun += 1;
          const base: Record<string, string> = op.startsWith('GET')
            ? {}
            : { Authorization: owner, 'Content-Type': 'application/json' };
          const all = { ...base, ...extra };
          const body = op.startsWith('GET') || op === 'DELETE' ? undefined : JSON.stringify(BODY);
          // DELETE goes to a blog that does not exist, so that the other operations keep theirs.
          const path = op === 'GET list' || op === 'POST' ? BLOGS : `${BLOGS}/${op === 'DELETE' ? INT4_MAX : ownedId}`;
          let reply: Reply;
          try {
            reply = await send(op.split(' ')[0], path, all, body);
          } catch (error) {
            // Node.js refused to send the header (not the server's doing): not a case.
            if (
              (error as { code?: string }).code === 'ERR_INVALID_CHAR' ||
              (error as { code?: string }).code === 'ERR_INVALID_HTTP_TOKEN'
            )
              return;
            throw error;
          }
          if (op === 'DELETE' && reply.status < 300)
            throw new Error(`DELETE of a missing blog answered ${reply.status}`);
          await expectAnswer(
            reply,
            (value) => (op === 'GET list' ? expectEnvelope(value) : expectBlog(value)),
            all.Accept,
          );
        }),
        options(SHARE.headers),
      );
    },
    timeoutFor(SHARE.headers),
  );

  it(
    `raw bytes as a JSON body (${runsFor(SHARE.bytes)} cases): never 5xx`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ maxLength: 64 }),
          fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain'),
          async (bytes, type) => {
            casesRun += 1;
            const reply = await send('POST', BLOGS, { Authorization: owner, 'Content-Type': type }, Buffer.from(bytes));
            await expectAnswer(reply, (body) => expectBlog(body));
          },
        ),
        options(SHARE.bytes),
      );
    },
    timeoutFor(SHARE.bytes),
  );

  it(
    `bodies with up to 20,000 extra keys (${runsFor(SHARE.keys)} cases): 400 with a small error body`,
    async () => {
      await fc.assert(
        fc.asyncProperty(manyKeysBody, fc.constantFrom('POST', 'PUT', 'PATCH'), async (body, method) => {
          casesRun += 1;
          const extra = Object.keys(body).length - 3;
          const path = method === 'POST' ? BLOGS : `${BLOGS}/${ownedId}`;
          const reply = await send(
            method,
            path,
            { Authorization: owner, 'Content-Type': 'application/json' },
            JSON.stringify(body),
          );
          expect(reply.text.length).toBeLessThan(8_192);
          if (extra > 0) expect(reply.status).toBe(400);
          await expectAnswer(reply, (value) => expectBlog(value));
        }),
        options(SHARE.keys),
      );
    },
    timeoutFor(SHARE.keys),
  );

  it(
    `entity-tag lists of any shape (${runsFor(SHARE.tags)} cases): answered, never 5xx`,
    async () => {
      await fc.assert(
        fc.asyncProperty(
          entityTagList,
          fc.constantFrom('If-Match', 'If-None-Match'),
          fc.boolean(),
          async (value, name, write) => {
            casesRun += 1;
            const reply = write
              ? await send(
                  'PUT',
                  `${BLOGS}/${ownedId}`,
                  { Authorization: owner, 'Content-Type': 'application/json', [name]: value },
                  JSON.stringify(BODY),
                )
              : await send('GET', `${BLOGS}/${ownedId}`, { [name]: value });
            if (reply.status !== 304) await expectAnswer(reply, (body) => expectBlog(body));
          },
        ),
        options(SHARE.tags),
      );
    },
    timeoutFor(SHARE.tags),
  );

  it('the app is still up and serving after all of it', async () => {
    expect((await send('GET', '/health/live')).status).toBe(200);
    // As its owner: an accepted PUT may have made it a draft or scheduled it, which only the owner sees.
    expect((await send('GET', `${BLOGS}/${ownedId}`, { Authorization: owner })).status).toBe(200);
  });

  it('the round-trip properties were exercised: some creates and updates were accepted', () => {
    // Needs the two body properties to have run (not filtered out with -t).
    expect(acceptedCreates).toBeGreaterThan(0);
    expect(acceptedUpdates).toBeGreaterThan(0);
  });
});

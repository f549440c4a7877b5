/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import { createServer, type ClientRequest, type RequestListener } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import type { Response, Test } from 'supertest';
import {
  bearer,
  BlogInput,
  blogInput,
  BLOGS,
  blogsFingerprint,
  createBlog,
  expectJsonError,
  messagesOf,
} from './support/blog-api';
import { TestApp, useTestApp } from './support/test-app';

// End-to-end checks of what create and update accept (bodies and ids) and of the order of checks
// on a write. Every rejected request is also checked to have left the
// database exactly as it was.

/** 1 MiB, the largest accepted body. */
const MAX_BODY_BYTES = 1_048_576;

type Field = 'title' | 'content' | 'author';
const FIELDS: readonly Field[] = ['title', 'content', 'author'];
const LIMITS: Record<Field, number> = { title: 200, author: 100, content: 100_000 };

type Op = 'create' | 'update';
const OPS: readonly Op[] = ['create', 'update'];

/** A valid body with some fields replaced (by values of any type, for the invalid cases). */
const valid = (overrides: Partial<Record<Field, unknown>> = {}): Record<string, unknown> => ({
  ...blogInput(),
  ...overrides,
});

/** `{"title":…,"content":…,"author":…` + `extra` + `}` as JSON text, for what `JSON.stringify` cannot write. */
const rawJson = (extra: string, base: Record<string, unknown> = valid()): string =>
  `${JSON.stringify(base).slice(0, -1)}${extra}}`;

/**
 * Sends a request byte for byte as written, over a new connection to a server of the app's
 * Express instance, for what supertest (Node's HTTP client) cannot send: a POST or PUT with no
 * `Content-Length` and no `Transfer-Encoding`, i.e. without a body (RFC 9112 §6.3), as
 * `curl -X POST -H 'Content-Type: application/json'` does.
 *
 * @param head - request line and header lines, without line ends; `Host` and `Connection: close`
 *   are added.
 * @param body - bytes after the header section (e.g. a chunked body), sent as is.
 * @returns the response with `status`, `headers` and `body` filled in (what `expectJsonError` and
 *   `messagesOf` read), typed as supertest's so the shared checks apply.
 */
async function sendRaw(t: TestApp, head: readonly string[], body = ''): Promise<Response> {
  // The Express application is a request listener; a server of its own leaves supertest's alone.
  const app: RequestListener = t.app.getHttpAdapter().getInstance();
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const text = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      const socket = connect(port, '127.0.0.1', () => {
        socket.end(`${[...head, 'Host: localhost', 'Connection: close'].join('\r\n')}\r\n\r\n${body}`);
      });
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      socket.on('error', reject);
    });
    const [headerSection, ...rest] = text.split('\r\n\r\n');
    const [statusLine, ...headerLines] = headerSection.split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of headerLines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const payload = rest.join('\r\n\r\n');
    const response: Pick<Response, 'status' | 'headers' | 'body'> = {
      status: Number(statusLine.split(' ')[1]),
      headers,
      body: /^application\/(problem\+)?json/.test(headers['content-type'] ?? '')
        ? (JSON.parse(payload) as unknown)
        : payload,
    };
    return response as Response;
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('blogs: request validation (e2e)', () => {
  const t = useTestApp();
  let alice: string;
  let bob: string;
  /** A blog owned by alice, the target of updates. */
  let existingId: number;
  /** `blogs` before the current test ({@link blogsFingerprint}), to prove a rejected request changed nothing. */
  let snapshotBefore: string;

  beforeAll(async () => {
    alice = t.token('alice');
    bob = t.token('bob');
    existingId = (await createBlog(t, 'alice')).body.id;
  });

  beforeEach(async () => {
    snapshotBefore = await snapshot();
  });

  const snapshot = (): Promise<string> => blogsFingerprint(t);

  /** Nothing was stored, and no stored blog changed, since the test began. */
  async function expectNothingChanged(): Promise<void> {
    await expect(snapshot()).resolves.toBe(snapshotBefore);
  }

  /** A request of `op` (create, or update of the existing blog) with `token` (alice by default). */
  function write(op: Op, token: string | null = alice, path?: string) {
    const target = path ?? (op === 'create' ? BLOGS : `${BLOGS}/${existingId}`);
    const req = op === 'create' ? t.http.post(target) : t.http.put(target);
    return token === null ? req : req.set('Authorization', bearer(token));
  }

  /** Sends JSON text as is, with `Content-Type: application/json`. */
  function writeRaw(op: Op, text: string) {
    return write(op).set('Content-Type', 'application/json').send(text);
  }

  /**
   * A write of `op` sent by {@link sendRaw}: `headers` (e.g. `Content-Type`), alice's token unless
   * `token` is null, and no body unless `body` is given (then with the framing in `headers`).
   */
  function writeOnTheWire(
    op: Op,
    headers: readonly string[],
    options: { token?: string | null; path?: string; body?: string } = {},
  ): Promise<Response> {
    const { token = alice, path = op === 'create' ? BLOGS : `${BLOGS}/${existingId}`, body } = options;
    const auth = token === null ? [] : [`Authorization: ${bearer(token)}`];
    return sendRaw(t, [`${op === 'create' ? 'POST' : 'PUT'} ${path} HTTP/1.1`, ...auth, ...headers], body);
  }

  const successStatus = (op: Op): number => (op === 'create' ? 201 : 200);

  /** 400 with a message that names `name`, and nothing changed in the database. */
  async function expectRejectedNaming(res: Response, name: string): Promise<void> {
    expectJsonError(res, 400);
    expect(messagesOf(res).some((m) => m.includes(name))).toBe(true);
    await expectNothingChanged();
  }

  /** Accepted: 201/200 and the stored row holds exactly what was sent. */
  async function expectAccepted(op: Op, res: Response, sent: BlogInput): Promise<void> {
    expect(res.status).toBe(successStatus(op));
    expect(res.body).toMatchObject(sent);
    const rows: BlogInput[] = await t.dataSource.query('SELECT title, content, author FROM blogs WHERE id = $1', [
      res.body.id,
    ]);
    expect(rows).toEqual([sent]);
  }

  describe.each(OPS)('%s: field lengths are counted in characters', (op) => {
    describe.each(FIELDS)('%s', (field) => {
      const max = LIMITS[field];

      it.each([
        ['1 character', 'x'],
        [`${max} characters (the maximum)`, 'x'.repeat(max)],
        [`${max} astral characters such as 😀 (${2 * max} UTF-16 code units)`, '😀'.repeat(max)],
      ])('accepts %s', async (_name, value) => {
        const body = blogInput({ [field]: value });
        await expectAccepted(op, await write(op).send(body), body);
      });

      it.each([
        ['0 characters (empty string)', ''],
        [`${max + 1} characters`, 'x'.repeat(max + 1)],
        [`${max + 1} astral characters`, '😀'.repeat(max + 1)],
      ])('rejects %s with 400 naming the field', async (_name, value) => {
        await expectRejectedNaming(await write(op).send(valid({ [field]: value })), field);
      });
    });
  });

  describe('characters are Unicode code points', () => {
    it('counts a combining mark as a character: 100 × "e\\u0301" (200 code points) is a valid title', async () => {
      const body = blogInput({ title: 'e\u0301'.repeat(100) });
      await expectAccepted('create', await write('create').send(body), body);
    });

    it.each([
      ['made of combining sequences (100 × "e\\u0301" + "e")', `${'e\u0301'.repeat(100)}e`],
      ['whose last is a variation selector (200 × "x" + U+FE0F)', `${'x'.repeat(200)}\uFE0F`],
    ])('rejects 201 code points %s', async (_name, title) => {
      await expectRejectedNaming(await write('create').send(valid({ title })), 'title');
    });
  });

  describe('blank text', () => {
    describe.each(OPS)('%s', (op) => {
      it.each(FIELDS)('rejects a whitespace-only %s with 400 naming it', async (field) => {
        await expectRejectedNaming(await write(op).send(valid({ [field]: ' \t\r\n \u00a0\u3000 ' })), field);
      });
    });

    // Every character with the Unicode White_Space property.
    const whitespace: [string, string][] = [
      ['U+0009 tab', '\u0009'],
      ['U+000A line feed', '\u000a'],
      ['U+000B vertical tab', '\u000b'],
      ['U+000C form feed', '\u000c'],
      ['U+000D carriage return', '\u000d'],
      ['U+0020 space', '\u0020'],
      ['U+0085 next line', '\u0085'],
      ['U+00A0 no-break space', '\u00a0'],
      ['U+1680 ogham space mark', '\u1680'],
      ['U+2000 en quad', '\u2000'],
      ['U+2003 em space', '\u2003'],
      ['U+200A hair space', '\u200a'],
      ['U+2028 line separator', '\u2028'],
      ['U+2029 paragraph separator', '\u2029'],
      ['U+202F narrow no-break space', '\u202f'],
      ['U+205F medium mathematical space', '\u205f'],
      ['U+3000 ideographic space', '\u3000'],
    ];
    it.each(whitespace)('rejects a title made only of %s', async (_name, ch) => {
      await expectRejectedNaming(await write('create').send(valid({ title: ch.repeat(3) })), 'title');
    });

    it('accepts text with whitespace around a visible character, unchanged', async () => {
      const body = blogInput({ title: '  x  ', content: '\n\tx\n', author: '\u3000x' });
      await expectAccepted('create', await write('create').send(body), body);
    });
  });

  describe('U+0000 and lone surrogates', () => {
    describe.each(OPS)('%s', (op) => {
      it.each(FIELDS)('rejects U+0000 in %s with 400 naming it', async (field) => {
        await expectRejectedNaming(await write(op).send(valid({ [field]: 'before\u0000after' })), field);
      });

      it.each(FIELDS)('rejects a %s that is only U+0000', async (field) => {
        await expectRejectedNaming(await write(op).send(valid({ [field]: '\u0000' })), field);
      });

      it.each([
        ['title', '\\ud800'],
        ['content', 'text \\udc00 text'],
        ['author', 'a\\ud83d'],
        ['title', '\\ude00\\ud83d'],
      ] as [Field, string][])('rejects a lone surrogate in %s (%s as JSON text)', async (field, escaped) => {
        const { [field]: _dropped, ...rest } = valid();
        const res = await writeRaw(op, rawJson(`,"${field}":"${escaped}"`, rest));
        await expectRejectedNaming(res, field);
      });
    });

    it('accepts a surrogate pair written as JSON escapes (\\ud83d\\ude00 is 😀)', async () => {
      const res = await writeRaw('create', '{"title":"\\ud83d\\ude00","content":"c","author":"a"}');
      await expectAccepted('create', res, { title: '😀', content: 'c', author: 'a' });
    });
  });

  describe('bytes that are not UTF-8 (RFC 8259 §8.1): 400 naming the body, nothing stored', () => {
    const notUtf8: [string, number[]][] = [
      ['a lone continuation byte', [0x80]],
      ['a truncated sequence', [0xe2, 0x82]],
      ['an overlong encoding of "/"', [0xc0, 0xaf]],
      ['a surrogate code point (ED A0 80 is U+D800)', [0xed, 0xa0, 0x80]],
      ['FF', [0xff]],
      ['FF FE C3', [0xff, 0xfe, 0xc3]],
      ['a code point past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ];
    /** A valid body whose title holds `bytes` between "bad" and its closing quote. */
    const bodyWith = (bytes: number[]): Buffer =>
      Buffer.concat([Buffer.from('{"title":"bad'), Buffer.from(bytes), Buffer.from('","content":"c","author":"a"}')]);
    /** Sends `bytes` as they are under `Content-Type: application/json` (superagent would serialize a Buffer as JSON). */
    const sendBytes = (request: Test, bytes: Buffer): Test =>
      request
        .set('Content-Type', 'application/json')
        .serialize((body: Buffer) => body as unknown as string)
        .send(bytes);
    const sends = {
      POST: () => t.http.post(BLOGS).set('Authorization', bearer(alice)),
      PUT: () => t.http.put(`${BLOGS}/${existingId}`).set('Authorization', bearer(alice)),
      PATCH: () => t.http.patch(`${BLOGS}/${existingId}`).set('Authorization', bearer(alice)),
    };
    const cases = Object.keys(sends).flatMap((method) =>
      notUtf8.map(([name, bytes]) => [method as keyof typeof sends, name, bytes] as const),
    );

    it.each(cases)('%s with %s in a string', async (method, _name, bytes) => {
      const listed = (await t.http.get(`${BLOGS}?limit=1`).expect(200)).body.total as number;
      const res = await sendBytes(sends[method](), bodyWith(bytes));

      await expectRejectedNaming(res, 'request body must be UTF-8');
      expect((await t.http.get(`${BLOGS}?limit=1`).expect(200)).body.total).toBe(listed);
    });

    it.each(notUtf8)('POST /api/v1/webhooks with %s: 400, no webhook stored', async (_name, bytes) => {
      const count = async (): Promise<number> =>
        Number((await t.dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM webhooks'))[0].n);
      const before = await count();
      const body = Buffer.concat([
        Buffer.from('{"url":"https://example.com/'),
        Buffer.from(bytes),
        Buffer.from('","events":["blog.created"]}'),
      ]);
      const res = await sendBytes(
        t.http.post('/api/v1/webhooks').set('Authorization', bearer(t.token('ops', { scope: 'webhooks:admin' }))),
        body,
      );

      expectJsonError(res, 400);
      expect(messagesOf(res)).toEqual(['request body must be UTF-8: it holds bytes that are not (RFC 8259 §8.1)']);
      await expect(count()).resolves.toBe(before);
    });

    it.each(OPS)('%s with multi-byte UTF-8 (2, 3 and 4 bytes): stored byte for byte', async (op) => {
      const body = blogInput({ title: 'é € 中 😀', content: 'Ω \u{1D11E}', author: 'Zoë' });
      const res = await sendBytes(write(op), Buffer.from(JSON.stringify(body)));
      await expectAccepted(op, res, body);
    });
  });

  describe('types: only JSON strings, no coercion', () => {
    const nonStrings: [string, unknown][] = [
      ['number', 5],
      ['zero', 0],
      ['null', null],
      ['empty array', []],
      ['array of strings', ['a']],
      ['empty object', {}],
      ['object', { text: 'a' }],
      ['true', true],
      ['false', false],
    ];

    describe.each(OPS)('%s', (op) => {
      describe.each(FIELDS)('%s', (field) => {
        it.each(nonStrings)('rejects a %s with 400 naming the field', async (_kind, value) => {
          await expectRejectedNaming(await write(op).send(valid({ [field]: value })), field);
        });
      });
    });
  });

  describe('required fields (update is a full replacement)', () => {
    describe.each(OPS)('%s', (op) => {
      it.each(FIELDS)('rejects a body without %s with 400 naming it', async (field) => {
        const { [field]: _missing, ...rest } = valid();
        await expectRejectedNaming(await write(op).send(rest), field);
      });

      it('rejects an empty object with 400 naming all three fields', async () => {
        const res = await write(op).send({});
        expectJsonError(res, 400);
        for (const field of FIELDS) expect(messagesOf(res).some((m) => m.includes(field))).toBe(true);
        await expectNothingChanged();
      });
    });
  });

  describe('extra properties', () => {
    const extras: [string, string][] = [
      ['id', '99'],
      ['createdAt', '"2020-01-01T00:00:00.000Z"'],
      ['updatedAt', '"2020-01-01T00:00:00.000Z"'],
      ['ownerId', '"mallory"'],
      ['ownerSub', '"mallory"'],
      ['owner_sub', '"mallory"'],
      ['__proto__', '{"isAdmin":true}'],
      ['constructor', '"x"'],
      ['constructor', '{"prototype":{"isAdmin":true}}'],
      ['prototype', '{"isAdmin":true}'],
      ['extra', '"x"'],
    ];

    describe.each(OPS)('%s', (op) => {
      it.each(extras)('rejects the property %s (value %s) with 400 naming it', async (name, value) => {
        const res = await writeRaw(op, rawJson(`,"${name}":${value}`));
        await expectRejectedNaming(res, name);
      });
    });
  });

  describe('bodies that are not a JSON object', () => {
    const malformed: [string, string][] = [
      ['truncated JSON', '{"title":"t","content":"c","author":'],
      ['unquoted keys', '{title:"t",content:"c",author:"a"}'],
      ['single quotes', "{'title':'t','content':'c','author':'a'}"],
      ['trailing comma', '{"title":"t","content":"c","author":"a",}'],
      ['trailing garbage', '{"title":"t","content":"c","author":"a"} x'],
      ['not JSON at all', 'title=t&content=c&author=a'],
    ];
    const notObjects: [string, string][] = [
      ['an empty array', '[]'],
      ['an array holding a valid blog', '[{"title":"t","content":"c","author":"a"}]'],
      ['a string', '"title"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
    ];

    describe.each(OPS)('%s', (op) => {
      it.each(malformed)('rejects malformed JSON (%s) with 400', async (_kind, text) => {
        expectJsonError(await writeRaw(op, text), 400);
        await expectNothingChanged();
      });

      it.each(notObjects)('rejects a JSON body that is %s with 400 saying so', async (_kind, text) => {
        const res = await writeRaw(op, text);
        expectJsonError(res, 400);
        expect((res.body as { errors: unknown }).errors).toEqual([
          { detail: 'request body must be a JSON object', pointer: '' },
        ]);
        await expectNothingChanged();
      });

      it('rejects an empty body sent as application/json with 400', async () => {
        expectJsonError(await writeRaw(op, ''), 400);
        await expectNothingChanged();
      });
    });
  });

  describe('a JSON content type with an empty body is 400, not 415', () => {
    /** The message every empty JSON body gets, however the emptiness was framed. */
    const EMPTY_MESSAGE = /must be a JSON object/;

    describe.each(OPS)('%s', (op) => {
      it.each([
        ['no body at all (no Content-Length, no Transfer-Encoding)', ['Content-Type: application/json'], undefined],
        ['Content-Length: 0', ['Content-Type: application/json', 'Content-Length: 0'], undefined],
        ['a chunked body of no chunks', ['Content-Type: application/json', 'Transfer-Encoding: chunked'], '0\r\n\r\n'],
        ['"application/json; charset=utf-8" and no body', ['Content-Type: application/json; charset=utf-8'], undefined],
      ])('%s → 400 "must be a JSON object"', async (_name, headers, body) => {
        const res = await writeOnTheWire(op, headers, { body });
        expectJsonError(res, 400);
        expect(messagesOf(res).join(' ')).toMatch(EMPTY_MESSAGE);
        await expectNothingChanged();
      });

      it('"{}" (two bytes) is an object, missing its fields: 400 naming them', async () => {
        const res = await writeRaw(op, '{}');
        expectJsonError(res, 400);
        for (const field of FIELDS) expect(messagesOf(res).join(' ')).toContain(field);
      });

      it.each([
        ['no Content-Type', []],
        ['Content-Type: text/plain', ['Content-Type: text/plain']],
      ])('%s and no body → 415', async (_name, headers) => {
        expectJsonError(await writeOnTheWire(op, headers), 415);
        await expectNothingChanged();
      });
    });
  });

  describe('body size (at most 1 MiB)', () => {
    /** A valid blog whose JSON text, padded with insignificant whitespace, is exactly `bytes` long. */
    function paddedValidBody(bytes: number): string {
      const text = JSON.stringify(valid({ content: 'x'.repeat(LIMITS.content) }));
      return `${text.slice(0, -1)}${' '.repeat(bytes - Buffer.byteLength(text))}}`;
    }

    /** A blog whose content fills the JSON text up to exactly `bytes` (content then exceeds its limit). */
    function paddedContentBody(bytes: number): string {
      const text = JSON.stringify(valid({ content: '' }));
      return JSON.stringify(valid({ content: 'x'.repeat(bytes - Buffer.byteLength(text)) }));
    }

    it('builds bodies of the intended sizes', () => {
      expect(Buffer.byteLength(paddedValidBody(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
      expect(Buffer.byteLength(paddedContentBody(MAX_BODY_BYTES))).toBe(MAX_BODY_BYTES);
      expect(Buffer.byteLength(paddedContentBody(MAX_BODY_BYTES + 1))).toBe(MAX_BODY_BYTES + 1);
    });

    it.each(OPS)(`%s: accepts a valid body of exactly ${MAX_BODY_BYTES.toLocaleString('en-US')} bytes`, async (op) => {
      const text = paddedValidBody(MAX_BODY_BYTES);
      const res = await writeRaw(op, text);
      await expectAccepted(op, res, JSON.parse(text) as BlogInput);
    });

    it.each(OPS)(
      `%s: a body of exactly ${MAX_BODY_BYTES.toLocaleString('en-US')} bytes passes the size rule (not 413; its content is too long: 400)`,
      async (op) => {
        const res = await writeRaw(op, paddedContentBody(MAX_BODY_BYTES));
        expect(res.status).not.toBe(413);
        await expectRejectedNaming(res, 'content');
      },
    );

    it.each(OPS)('%s: rejects a body of 1,048,577 bytes with 413 and the JSON error body', async (op) => {
      const res = await writeRaw(op, paddedContentBody(MAX_BODY_BYTES + 1));
      expectJsonError(res, 413);
      await expectNothingChanged();
    });
  });

  describe('content type', () => {
    const text = JSON.stringify(valid());
    // Only application/json itself: not its +json relatives nor text/json.
    const rejectedTypes = [
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/xml',
      'text/json',
      'application/merge-patch+json',
      'application/json-patch+json',
      'application/vnd.api+json',
      'application/jsonx',
    ];
    // JSON is UTF-8 (RFC 8259 §8.1); "utf8" is not the registered name (body-parser refuses it too).
    const foreignCharsets = [
      'application/json; charset=latin1',
      'application/json; charset="ISO-8859-1"',
      'application/json; charset=utf-16',
      'application/json; charset=utf8',
      'application/json; charset=utf-8; charset=latin1',
    ];

    describe.each(OPS)('%s', (op) => {
      it('rejects a body without Content-Type with 415 and the JSON error body', async () => {
        const res = await write(op).send(Buffer.from(text));
        // The test itself: supertest sends a Buffer without a Content-Type.
        expect((res as unknown as { req: ClientRequest }).req.getHeader('content-type')).toBeUndefined();
        expectJsonError(res, 415);
        await expectNothingChanged();
      });

      it.each(rejectedTypes)('rejects Content-Type: %s with 415 and the JSON error body', async (type) => {
        const res = await write(op).set('Content-Type', type).send(text);
        expectJsonError(res, 415);
        await expectNothingChanged();
      });

      it.each(foreignCharsets)('rejects Content-Type: %s with 415 naming application/json and utf-8', async (type) => {
        const res = await write(op).set('Content-Type', type).send(text);
        expectJsonError(res, 415);
        expect(messagesOf(res).join(' ')).toMatch(/application\/json.*utf-8/);
        await expectNothingChanged();
      });

      it.each([...rejectedTypes, ...foreignCharsets])('answers %s without a token 401, not 415', async (type) => {
        const res = await write(op, null).set('Content-Type', type).send(text);
        expectJsonError(res, 401);
        await expectNothingChanged();
      });

      it.each([
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
        'application/json; charset="utf-8"',
        'application/json;',
        'application/json; foo=bar',
      ])('accepts Content-Type: %s', async (type) => {
        const body = blogInput({ title: `sent as ${type} 😀` });
        const res = await write(op).set('Content-Type', type).send(JSON.stringify(body));
        await expectAccepted(op, res, body);
      });
    });
  });

  describe('ids', () => {
    const badIds: [string, string][] = [
      ['0', '0'],
      ['-1', '-1'],
      ['01', '01'],
      ['1.5', '1.5'],
      ['1e3', '1e3'],
      ['" 1" (leading space)', '%201'],
      ['"1 " (trailing space)', '1%20'],
      ['+1', '%2B1'],
      ['abc', 'abc'],
      ['0x10', '0x10'],
      ['fullwidth digit １', '%EF%BC%91'],
      ['2147483648', '2147483648'],
      ['99999999999999999999', '99999999999999999999'],
    ];

    it.each(badIds)('read: rejects id %s with 400', async (_label, id) => {
      expectJsonError(await t.http.get(`${BLOGS}/${id}`), 400);
    });

    it.each(badIds)('update: rejects id %s with 400 and changes nothing', async (_label, id) => {
      const res = await write('update', alice, `${BLOGS}/${id}`).send(valid());
      expectJsonError(res, 400);
      await expectNothingChanged();
    });

    it.each([
      ['read', () => t.http.get(`${BLOGS}/2147483647`)],
      ['update', () => write('update', alice, `${BLOGS}/2147483647`).send(valid())],
    ])('%s: id 2147483647 is well formed and answers 404, changing nothing', async (_op, send) => {
      expectJsonError(await send(), 404);
      await expectNothingChanged();
    });
  });

  describe('order of checks on a write: token 401 → id 400 → content type 415 → body 400 → existence 404 → ownership 403', () => {
    const invalidBody = JSON.stringify({ title: 5, content: '' });
    const missingPath = `${BLOGS}/2147483647`;
    const latin1 = 'application/json; charset=latin1';

    /** A rejected write: its status and, when given, what the message and the challenge must say. */
    interface Rejected {
      readonly name: string;
      readonly send: () => Promise<Response>;
      readonly status: number;
      readonly message?: RegExp;
      readonly notMessage?: RegExp;
      readonly challenge?: RegExp;
    }

    const aboutTheId = /\bid\b/;
    const rejected: Rejected[] = [
      {
        name: 'no token + bad id + text/plain → 401',
        send: () => write('update', null, `${BLOGS}/01`).set('Content-Type', 'text/plain').send(invalidBody),
        status: 401,
        challenge: /^Bearer/,
      },
      ...OPS.flatMap((op): Rejected[] => [
        {
          name: `${op}: no token + invalid body → 401`,
          send: () => write(op, null).set('Content-Type', 'application/json').send(invalidBody),
          status: 401,
        },
        {
          name: `${op}: no token + JSON in latin1 → 401, not 415`,
          send: () => write(op, null).set('Content-Type', latin1).send(JSON.stringify(valid())),
          status: 401,
          challenge: /^Bearer$/,
        },
        {
          name: `${op}: no token + JSON content type without a body → 401, not 400`,
          send: () => writeOnTheWire(op, ['Content-Type: application/json'], { token: null }),
          status: 401,
        },
      ]),
      {
        name: 'valid token + bad id + text/plain → 400 about the id',
        send: () => write('update', alice, `${BLOGS}/01`).set('Content-Type', 'text/plain').send(invalidBody),
        status: 400,
        message: aboutTheId,
      },
      {
        name: 'valid token + bad id + JSON in latin1 → 400 about the id, not 415',
        send: () => write('update', alice, `${BLOGS}/01`).set('Content-Type', latin1).send(JSON.stringify(valid())),
        status: 400,
        message: aboutTheId,
      },
      {
        name: 'valid token + bad id + JSON content type without a body → 400 about the id',
        send: () => writeOnTheWire('update', ['Content-Type: application/json'], { path: `${BLOGS}/abc` }),
        status: 400,
        message: aboutTheId,
      },
      {
        name: 'valid token + bad id + invalid JSON body → 400 about the id, not the body',
        send: () => write('update', alice, `${BLOGS}/abc`).set('Content-Type', 'application/json').send(invalidBody),
        status: 400,
        message: aboutTheId,
        notMessage: /title|content|author/,
      },
      {
        name: 'valid token + missing blog + JSON in latin1 → 415, not 404',
        send: () => write('update', alice, missingPath).set('Content-Type', latin1).send(JSON.stringify(valid())),
        status: 415,
      },
      {
        name: 'valid token + missing blog + JSON content type without a body → 400, not 404',
        send: () => writeOnTheWire('update', ['Content-Type: application/json'], { path: missingPath }),
        status: 400,
        message: /must be a JSON object/,
      },
      {
        name: "non-owner's token + JSON content type without a body → 400, not 403",
        send: () => writeOnTheWire('update', ['Content-Type: application/json'], { token: bob }),
        status: 400,
      },
      {
        name: 'valid token + good id + text/plain + invalid body → 415',
        send: () => write('update').set('Content-Type', 'text/plain').send(invalidBody),
        status: 415,
      },
      {
        name: 'create: valid token + text/plain + invalid body → 415',
        send: () => write('create').set('Content-Type', 'text/plain').send(invalidBody),
        status: 415,
      },
      {
        name: 'valid token + missing blog + text/plain → 415, not 404',
        send: () => write('update', alice, missingPath).set('Content-Type', 'text/plain').send(JSON.stringify(valid())),
        status: 415,
      },
      {
        name: 'valid token + missing blog + invalid body → 400, not 404',
        send: () => write('update', alice, missingPath).set('Content-Type', 'application/json').send(invalidBody),
        status: 400,
      },
      {
        name: "non-owner's token + missing blog + valid body → 404, not 403",
        send: () => write('update', bob, missingPath).send(valid()),
        status: 404,
      },
      {
        name: "non-owner's token + existing blog + invalid body → 400, not 403",
        send: () => write('update', bob).set('Content-Type', 'application/json').send(invalidBody),
        status: 400,
      },
      {
        name: "non-owner's token + existing blog + valid body → 403 and the blog is unchanged",
        send: () => write('update', bob).send(valid({ title: 'hijacked' })),
        status: 403,
      },
    ];

    it.each(rejected)('$name', async ({ send, status, message, notMessage, challenge }) => {
      const res = await send();
      expectJsonError(res, status);
      if (message) expect(messagesOf(res).join(' ')).toMatch(message);
      if (notMessage) expect(messagesOf(res).join(' ')).not.toMatch(notMessage);
      if (challenge) expect(res.headers['www-authenticate']).toMatch(challenge);
      await expectNothingChanged();
    });

    it("the owner's token + existing blog + valid body → 200 (the chain ends in success)", async () => {
      const body = blogInput({ title: 'owner update' });
      await expectAccepted('update', await write('update').send(body), body);
    });

    it('a body over 1 MiB without a token is answered 401 (the body is read after authentication), as JSON', async () => {
      const res = await write('create', null)
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(valid({ content: 'x'.repeat(MAX_BODY_BYTES) })));
      expectJsonError(res, 401);
      await expectNothingChanged();
    });
  });

  describe('paths: the aliases behave as the canonical path, in any letter case', () => {
    // Express matches routes case-insensitively (its default, which Nest's adapter fixes when it
    // creates the router), so /API/V1/BLOGS reaches the handlers; the aliases must follow suit.
    const prefixes = [
      '/api/v1/blogs',
      '/api/blogs',
      '/v1/blogs',
      '/API/V1/BLOGS',
      '/Api/V1/Blogs',
      '/API/BLOGS',
      '/Api/blogs',
      '/api/Blogs',
      '/V1/blogs',
      '/v1/BLOGS',
      '/V1/Blogs',
    ];

    it.each(prefixes)('GET %s/:id serves the blog the canonical path serves', async (prefix) => {
      const canonical = await t.http.get(`${BLOGS}/${existingId}`).expect(200);
      const res = await t.http.get(`${prefix}/${existingId}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(canonical.body);
    });

    it.each(prefixes)('GET %s?limit=1 serves the list the canonical path serves', async (prefix) => {
      const canonical = await t.http.get(`${BLOGS}?limit=1`).expect(200);
      const res = await t.http.get(`${prefix}?limit=1`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(canonical.body);
    });

    it.each(prefixes)('POST %s creates: 201 with the canonical Location', async (prefix) => {
      const res = await t.http.post(prefix).set('Authorization', bearer(alice)).send(valid());
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`${BLOGS}/${res.body.id}`);
    });

    it.each(prefixes)('PUT %s/:id updates: 200', async (prefix) => {
      const body = blogInput({ title: `updated through ${prefix}` });
      await expectAccepted('update', await write('update', alice, `${prefix}/${existingId}`).send(body), body);
    });

    it.each(prefixes)('%s keeps the order of checks: no token → 401, then a bad id → 400', async (prefix) => {
      expectJsonError(await write('update', null, `${prefix}/01`).send(valid()), 401);
      const res = await write('update', alice, `${prefix}/01`).send(valid());
      expectJsonError(res, 400);
      expect(messagesOf(res).join(' ')).toMatch(/\bid\b/);
      await expectNothingChanged();
    });

    it.each(['/api/v2/blogs', '/V2/BLOGS', '/API/BLOGSX', '/v1/blogsx', '/api/v1/blogsx', '/blogs', '/v1/api/blogs'])(
      'GET %s is not served: 404 with the JSON error body',
      async (path) => {
        expectJsonError(await t.http.get(path), 404);
      },
    );
  });
});

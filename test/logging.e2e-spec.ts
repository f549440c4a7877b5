import { hostname } from 'node:os';
import type { DestinationStream, Logger } from 'pino';
import { BLOGS, BODY, bearer, sleep } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { LOG_DESTINATION, ROOT_LOGGER } from '../src/logging/logging.module';
import { problemBody } from './support/problem';

// One JSON line per request (request id, method, path, route, status,
// duration), the caller's X-Request-Id adopted when sane and always returned, and never a token,
// an Authorization or Cookie header, a query string or any request body text in a log line — on
// success, 4xx, 401, 413, 500 paths and in the exception filter's error log. The real app writes
// its logs (LOG_LEVEL=trace, the most verbose) into a stream the test reads.

/** Every log line the app wrote, parsed. */
const lines: Record<string, unknown>[] = [];
const raw: string[] = [];
const capture: DestinationStream = {
  write(chunk: string): void {
    for (const line of chunk.split('\n')) {
      if (line.trim() === '') continue;
      raw.push(line);
      lines.push(JSON.parse(line) as Record<string, unknown>);
    }
  },
};

interface RequestLine {
  level: number;
  req: { id: string; method: string; url: string };
  res: { statusCode: number };
  route?: string;
  responseTime: number;
  msg: string;
}

/** The request line of request `id`, waiting up to 2 s for the response to finish. */
async function requestLine(id: string): Promise<RequestLine> {
  for (let waited = 0; waited < 2_000; waited += 20) {
    const line = lines.find((l) => (l.req as { id?: unknown } | undefined)?.id === id && 'res' in l);
    if (line) return line as unknown as RequestLine;
    await sleep(20);
  }
  throw new Error(`no request line for ${id}`);
}

/** Text that must never be written: each test adds what it sent. */
const secrets = new Set<string>();
function secret(label: string): string {
  const value = `${label}-${Math.random().toString(36).slice(2, 10)}-SECRET`;
  secrets.add(value);
  return value;
}

const t = useTestApp(
  { LOG_LEVEL: 'trace' },
  {
    configure: (builder) => builder.overrideProvider(LOG_DESTINATION).useValue(capture),
    pinoLogger: true,
  },
);

describe('request lines', () => {
  it('one JSON line per request: the given X-Request-Id (returned too), method, path, route template, status, duration', async () => {
    const created = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('alice')))
      .send(BODY)
      .expect(201);
    const res = await t.http.get(`${BLOGS}/${created.body.id}?x=1`).set('X-Request-Id', 'req-0001.a:b_c').expect(200);

    expect(res.headers['x-request-id']).toBe('req-0001.a:b_c');
    const line = await requestLine('req-0001.a:b_c');
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: hostname(),
      req: { id: 'req-0001.a:b_c', method: 'GET', url: `${BLOGS}/${created.body.id}` },
      res: { statusCode: 200 },
      route: '/api/v1/blogs/:id',
      responseTime: expect.any(Number),
      msg: 'request completed',
    });
    expect(lines.filter((l) => (l.req as { id?: unknown } | undefined)?.id === 'req-0001.a:b_c')).toHaveLength(1);
  });

  it.each([
    ['too long (129 characters)', 'a'.repeat(129)],
    ['with a space', 'abc def'],
    ['with a quote', 'abc"def'],
    ['with a non-ASCII letter', 'abcé'],
    ['empty', ''],
  ])('an X-Request-Id %s is replaced by a generated UUID, returned and logged', async (_name, offered) => {
    const res = await t.http.get('/health/live').set('X-Request-Id', offered).expect(200);

    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await requestLine(id)).req.url).toBe('/health/live');
  });

  it('without X-Request-Id every response gets a fresh id', async () => {
    const [a, b] = await Promise.all([t.http.get(BLOGS), t.http.get(BLOGS)]);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
    expect((await requestLine(a.headers['x-request-id'])).route).toBe('/api/v1/blogs');
  });

  it.each(['/no/such/path', '/api/v1/nothing'])('a request to %s (no route) is logged and has its id', async (path) => {
    const res = await t.http.post(path).send(BODY).expect(404);
    const line = await requestLine(res.headers['x-request-id']);
    expect(line.res.statusCode).toBe(404);
    expect(line.route).toBeUndefined();
  });

  it('a body over 1 MiB is logged with its route and its 413', async () => {
    const res = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(t.token('alice')))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...BODY, content: 'x'.repeat(1_048_577) }))
      .expect(413);
    const line = await requestLine(res.headers['x-request-id']);
    expect(line.res.statusCode).toBe(413);
    expect(line.route).toBe('/api/v1/blogs');
  });
});

describe('no token, credential, query string or body text in any log line', () => {
  it('on 201, 200, 400, 401, 404, 413 and malformed-JSON paths', async () => {
    const token = t.token(secret('sub'));
    const title = secret('title');
    const cookie = `session=${secret('cookie')}`;
    const query = secret('query');
    const created = await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .set('Cookie', cookie)
      .send({ ...BODY, title, content: secret('content') })
      .expect(201);
    await t.http
      .put(`${BLOGS}/${created.body.id}`)
      .set('Authorization', bearer(token))
      .send({ ...BODY, author: secret('author') })
      .expect(200);
    await t.http.get(`${BLOGS}/${created.body.id}`).set('Authorization', bearer(token)).expect(200);
    await t.http.get(`${BLOGS}?access_token=${query}`).expect(400);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .send({ ...BODY, extra: secret('extra') })
      .expect(400);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .send({ title: 5, content: secret('typed'), author: 'a' })
      .expect(400);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .set('Content-Type', 'application/json')
      .send(`{"title":"${secret('malformed')}",`)
      .expect(400);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .set('Content-Type', 'text/plain')
      .send(secret('plain'))
      .expect(415);
    const badToken = `${token.slice(0, -4)}${secret('sig').slice(0, 4)}`;
    secrets.add(badToken);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(badToken))
      .send({ ...BODY, title: secret('unauth') })
      .expect(401);
    await t.http
      .post(BLOGS)
      .set('Authorization', `Basic ${secret('basic')}`)
      .send(BODY)
      .expect(401);
    await t.http.get(`${BLOGS}/999999`).set('Authorization', bearer(token)).expect(404);
    await t.http
      .post(BLOGS)
      .set('Authorization', bearer(token))
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ ...BODY, content: `${secret('huge')}${'y'.repeat(1_048_576)}` }))
      .expect(413);
    await sleep(100);

    expectNoSecretLogged();
  });

  it('on a 500: the exception filter logs the error with its stack and the request id, but no token or body', async () => {
    const token = t.token(secret('sub500'));
    const renamed = 'blogs_renamed_for_logging';
    await t.dataSource.query(`ALTER TABLE blogs RENAME TO ${renamed}`);
    try {
      const res = await t.http
        .post(BLOGS)
        .set('Authorization', bearer(token))
        .set('X-Request-Id', 'req-500')
        .send({ title: secret('title500'), content: secret('content500'), author: secret('author500') })
        .expect(500);
      expect(res.body).toEqual(problemBody(500, 'Internal server error'));
    } finally {
      await t.dataSource.query(`ALTER TABLE ${renamed} RENAME TO blogs`);
    }
    const requestLog = await requestLine('req-500');
    expect(requestLog.level).toBe(50);
    expect(requestLog.res.statusCode).toBe(500);
    const filterLog = lines.find(
      (l) => l.context === 'ExceptionsFilter' && (l.req as { id?: unknown } | undefined)?.id === 'req-500',
    );
    expect(filterLog).toMatchObject({ level: 50, err: { stack: expect.stringMatching(/\n\s+at /) } });

    expectNoSecretLogged();
  });

  it('a header object logged by application code has Authorization and Cookie redacted', () => {
    const authorization = bearer(secret('redact'));
    const cookie = `sid=${secret('redact-cookie')}`;
    t.app
      .get<Logger>(ROOT_LOGGER)
      .info({ headers: { authorization, cookie }, req: { headers: { authorization, cookie } } }, 'headers');

    const line = lines[lines.length - 1];
    expect(line).toMatchObject({
      headers: { authorization: '[Redacted]', cookie: '[Redacted]' },
      req: { headers: { authorization: '[Redacted]', cookie: '[Redacted]' } },
    });
    expectNoSecretLogged();
  });
});

/** Fails naming the first secret found in the captured output (and checks something was captured). */
function expectNoSecretLogged(): void {
  expect(raw.length).toBeGreaterThan(5);
  const text = raw.join('\n');
  for (const value of secrets) expect(text).not.toContain(value);
  expect(text).not.toMatch(/bearer /i);
  expect(text).not.toMatch(/"(authorization|cookie)":"(?!\[Redacted\])/i);
  expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/); // no JWS header of any token
}

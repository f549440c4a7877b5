import { createServer, IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebhookAddressPolicy } from './webhook-address-policy';
import { WebhookAttemptResult, WebhookSender } from './webhook-sender';

interface Received {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A server on 127.0.0.1 recording each request and connection, answering with `answer`. */
async function receiver(answer: (url: string, response: ServerResponse) => void) {
  const requests: Received[] = [];
  const connections: unknown[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { method, url, headers } = request;
      requests.push({ method, url, headers, body: Buffer.concat(chunks).toString() });
      answer(url ?? '', response);
    });
  });
  server.on('connection', (socket) => connections.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, requests, connections, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Streams `bytes` of answer body, stopping when the client goes away. */
function stream(response: ServerResponse, bytes: number): void {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  let left = bytes;
  const pump = (): void => {
    while (left > 0 && !response.destroyed) {
      left -= chunk.length;
      if (!response.write(chunk)) {
        response.once('drain', pump);
        return;
      }
    }
    response.end();
  };
  response.on('error', () => undefined);
  pump();
}

describe('WebhookSender', () => {
  const policy = new WebhookAddressPolicy(['127.0.0.1', 'receiver.test'], async (hostname) =>
    ['localhost', 'receiver.test'].includes(hostname) ? [{ address: '127.0.0.1', family: 4 }] : [],
  );
  // A bound no answer here comes near on a busy machine; the receiver that never answers gets its own, short one.
  const sender = new WebhookSender(policy, 30_000);
  const impatient = new WebhookSender(policy, 200);
  let target: Awaited<ReturnType<typeof receiver>>;
  let redirected: Awaited<ReturnType<typeof receiver>>;
  let closedPort: number;

  beforeAll(async () => {
    redirected = await receiver((_url, response) => response.end());
    target = await receiver((url, response) => {
      const [, kind, status] = url.split('/');
      if (kind === 'hang') return;
      response.statusCode = Number(status);
      if (kind === 'redirect') response.setHeader('Location', `${redirected.base}/moved`);
      if (kind === 'huge') return stream(response, 10 * 1024 * 1024);
      response.end(kind === 'status' ? 'fine' : undefined);
    });
    const closed = await receiver(() => undefined);
    closedPort = (closed.server.address() as AddressInfo).port;
    await new Promise((resolve) => closed.server.close(resolve));
  });

  afterAll(async () => {
    for (const { server } of [target, redirected]) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sends the body exactly, as JSON, with the caller headers and its own', async () => {
    const body = JSON.stringify({ type: 'blog.created', title: 'Grüße 👋' });
    const result = await sender.post(`${target.base}/status/200`, { 'webhook-id': 'msg_1', 'X-Extra': 'a b' }, body);

    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(target.requests.at(-1)).toMatchObject({
      method: 'POST',
      url: '/status/200',
      body,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'blog-service-webhooks',
        'webhook-id': 'msg_1',
        'x-extra': 'a b',
      },
    });
  });

  it.each<[string, string, Omit<WebhookAttemptResult, 'durationMs'>]>([
    ['200', '/status/200', { ok: true, statusCode: 200, error: null }],
    ['204', '/status/204', { ok: true, statusCode: 204, error: null }],
    ['500', '/status/500', { ok: false, statusCode: 500, error: 'answered 500' }],
    ['404', '/status/404', { ok: false, statusCode: 404, error: 'answered 404' }],
    ['302', '/redirect/302', { ok: false, statusCode: 302, error: 'answered 302 (redirects are not followed)' }],
    ['307', '/redirect/307', { ok: false, statusCode: 307, error: 'answered 307 (redirects are not followed)' }],
    ['200 with a 10 MB body', '/huge/200', { ok: true, statusCode: 200, error: null }],
    ['500 with a 10 MB body', '/huge/500', { ok: false, statusCode: 500, error: 'answered 500' }],
    ['nothing', '/hang', { ok: false, statusCode: null, error: 'timed out after 0.2 s' }],
  ])('reports an answer of %s', async (_name, path, expected) => {
    const result = await (path === '/hang' ? impatient : sender).post(`${target.base}${path}`, {}, '{}');

    expect(result).toEqual({ ...expected, durationMs: expect.any(Number) });
    expect(Number.isInteger(result.durationMs)).toBe(true);
    expect(target.requests.at(-1)?.url).toBe(path);
    expect(redirected.requests).toHaveLength(0);
  });

  it('connects to an allowed name through the policy lookup', async () => {
    const result = await sender.post(`http://receiver.test:${new URL(target.base).port}/status/201`, {}, '{}');

    expect(result).toMatchObject({ ok: true, statusCode: 201, error: null });
    expect(target.requests.at(-1)?.headers.host).toBe(`receiver.test:${new URL(target.base).port}`);
  });

  it('reports a refused connection', async () => {
    await expect(sender.post(`http://127.0.0.1:${closedPort}/`, {}, '{}')).resolves.toMatchObject({
      ok: false,
      statusCode: null,
      error: 'connection refused',
    });
  });

  it.each<[string, (port: string) => string, string]>([
    ['http to a host not allowed', (port) => `http://localhost:${port}/`, 'url must use https'],
    [
      'a name not allowed resolving to loopback',
      (port) => `https://localhost:${port}/`,
      'address refused: localhost resolves to a loopback address (127.0.0.1)',
    ],
    [
      'an IPv4-mapped loopback literal (no lookup happens for literals)',
      (port) => `https://[::ffff:127.0.0.1]:${port}/`,
      "url's host is a loopback address (::ffff:7f00:1)",
    ],
    ['userinfo', (port) => `http://user:pw@127.0.0.1:${port}/`, 'url must not contain credentials'],
  ])('refuses %s without connecting', async (_name, url, error) => {
    const before = target.connections.length;
    const result = await sender.post(url(new URL(target.base).port), {}, '{}');

    expect(result).toMatchObject({ ok: false, statusCode: null, error });
    expect(target.connections).toHaveLength(before);
  });

  it('reports a header the request cannot carry without throwing', async () => {
    await expect(sender.post(`${target.base}/status/200`, { 'x-bad': 'a\nb' }, '{}')).resolves.toMatchObject({
      ok: false,
      statusCode: null,
      error: 'request not sent (ERR_INVALID_CHAR)',
    });
  });
});

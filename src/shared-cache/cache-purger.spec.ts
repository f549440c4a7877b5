import { createServer, IncomingHttpHeaders, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CachePurger, keyLines, PURGE_KEYS_LENGTH } from './cache-purger';

const TOKEN = 'purge-token-0123456789abcdefghijklmnop';
const purger = (purgeToken?: string) =>
  new CachePurger({ maxAge: 0, sharedMaxAge: 60, purgeUrls: [], ...(purgeToken ? { purgeToken } : {}) });

describe('keyLines', () => {
  it.each<[string, string[], number[]]>([
    ['none', [], []],
    ['a few: one line', ['blog-1', 'blogs', 'comments-1'], [23]],
    ['as many as fit, then another line', Array.from({ length: 800 }, (_, n) => `blog-${n + 1000}`), [3999, 3999]],
    ['a key longer than a line: alone', ['a'.repeat(PURGE_KEYS_LENGTH + 1), 'b'], [PURGE_KEYS_LENGTH + 1, 1]],
  ])('%s', (_name, keys, lengths) => {
    const lines = keyLines(keys);

    expect(lines.map((line) => line.length)).toEqual(lengths);
    expect(lines.join(' ').split(' ').filter(Boolean)).toEqual(keys);
  });
});

describe('CachePurger', () => {
  let server: Server;
  let url: string;
  let answers: number[];
  const received: { method?: string; url?: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      received.push({ method: request.method, url: request.url, headers: request.headers });
      response.writeHead(answers.shift() ?? 200).end('purged');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    received.length = 0;
    answers = [];
  });

  it.each([
    ['without CACHE_PURGE_TOKEN: no credentials', undefined, undefined],
    ['with CACHE_PURGE_TOKEN: it as a bearer token', TOKEN, `Bearer ${TOKEN}`],
  ])('sends PURGE to the base URL with the keys in Surrogate-Key; %s', async (_name, token, authorization) => {
    await expect(purger(token).purge(url, ['blog-1', 'blogs'])).resolves.toEqual({ sent: 1, error: null });

    expect(received).toEqual([
      expect.objectContaining({
        method: 'PURGE',
        url: '/',
        headers: expect.objectContaining({ 'surrogate-key': 'blog-1 blogs' }),
      }),
    ]);
    expect(received[0].headers.authorization).toBe(authorization);
  });

  it.each([
    [[503], 0, 'answered 503', 1],
    [[200, 301], 1, 'answered 301', 2],
  ])('answers %p: %i sent, then "%s", stopping there', async (statuses, sent, error, requests) => {
    answers = [...statuses];
    const keys = Array.from({ length: 800 }, (_, n) => `blog-${n + 1000}`);

    await expect(purger().purge(url, keys)).resolves.toEqual({ sent, error });
    expect(received).toHaveLength(requests);
  });

  it('reports a cache that is down, without throwing', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));

    await expect(purger().purge(`http://127.0.0.1:${port}/`, ['blogs'])).resolves.toEqual({
      sent: 0,
      error: expect.stringMatching(/ECONNREFUSED/),
    });
  });
});

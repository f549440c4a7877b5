import { get } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { BLOGS, createBlog } from './support/blog-api';
import { useTestApp } from './support/test-app';

interface RawReply {
  readonly status: number;
  readonly encoding?: string;
  readonly vary?: string;
  readonly body: Buffer;
}

// Large lists compress; small bodies (a short blog, an error) go out as they are.
describe('response compression (Accept-Encoding)', () => {
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
  let port: number;
  let smallId: number;

  beforeAll(async () => {
    port = await t.listen();
    for (let i = 0; i < 5; i += 1) await createBlog(t, 'alice', { content: `${'lorem ipsum '.repeat(850)}${i}` });
    smallId = (await createBlog(t, 'alice', { content: 'short' })).body.id;
  });

  const fetchRaw = (path: string, acceptEncoding?: string): Promise<RawReply> =>
    new Promise((resolve, reject) => {
      const headers = acceptEncoding === undefined ? {} : { 'Accept-Encoding': acceptEncoding };
      get({ host: '127.0.0.1', port, path, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            encoding: res.headers['content-encoding'],
            vary: res.headers.vary,
            body: Buffer.concat(chunks),
          }),
        );
      }).on('error', reject);
    });

  it.each([
    ['br', 'gzip, br', brotliDecompressSync],
    ['gzip', 'gzip', gunzipSync],
  ])('a large list is sent %s-compressed when the client accepts it', async (encoding, accept, decompress) => {
    const plain = await fetchRaw(`${BLOGS}?limit=100`, 'identity');
    const compressed = await fetchRaw(`${BLOGS}?limit=100`, accept);

    expect(compressed).toMatchObject({ status: 200, encoding, vary: expect.stringMatching(/Accept-Encoding/i) });
    expect(compressed.body.length).toBeLessThan(plain.body.length / 10);
    expect(decompress(compressed.body).equals(plain.body)).toBe(true);
  });

  it('without Accept-Encoding the list is sent as it is', async () => {
    const reply = await fetchRaw(`${BLOGS}?limit=100`);

    expect(reply.encoding).toBeUndefined();
    // The answer depends on Accept-Encoding all the same (RFC 9110 §12.5.5).
    expect(reply.vary).toMatch(/Accept-Encoding/i);
    expect((JSON.parse(reply.body.toString('utf8')) as { data: unknown[] }).data).toHaveLength(6);
  });

  it.each([
    ['a short blog', () => `${BLOGS}/${smallId}`, 200],
    ['an error', () => `${BLOGS}/2147483647`, 404],
  ])('%s (under 1 KiB) is not compressed', async (_name, path, status) => {
    const reply = await fetchRaw(path(), 'gzip, br');

    expect(reply.status).toBe(status);
    expect(reply.encoding).toBeUndefined();
    expect(reply.body.length).toBeLessThan(1024);
  });
});

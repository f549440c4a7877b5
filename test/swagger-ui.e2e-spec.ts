import { existsSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Browser, chromium, Locator, Page } from 'playwright-core';
import { BLOGS, bearer } from './support/blog-api';
import { createTestApp, TestApp } from './support/test-app';
import { patience } from './support/patience';

// Swagger UI used in a real Chromium. The page is opened at a non-loopback address: browsers exempt
// loopback from CSP's upgrade-insecure-requests, so only there would an upgrade to https (which this
// service does not speak) leave the page blank. Then every operation runs with the values "Try it
// out" fills in, on a fresh database (docs/api.md, "Trying the API in Swagger UI").

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Each step (a click, a page's answer) waits for its element; this is the net under that wait.
const UI_TIMEOUT_MS = patience(15_000);

const address = Object.values(networkInterfaces())
  .flat()
  .find((a) => a?.family === 'IPv4' && !a.internal)?.address;
const skipReason = !existsSync(CHROMIUM)
  ? `no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`
  : address === undefined
    ? 'this machine has no non-loopback IPv4 address'
    : undefined;
// Say why, so a skip is never mistaken for a pass.
if (skipReason !== undefined) console.warn(`Swagger UI browser tests skipped: ${skipReason}`);

/** The operations of the committed document (openapi:check keeps it equal to the code's), in document order. */
interface Operation {
  method: string;
  path: string;
  operationId: string;
  tags: string[];
  parameters?: { name: string; schema?: { example?: unknown } }[];
}
const OPERATIONS: readonly Operation[] = Object.entries(
  (JSON.parse(readFileSync(`${__dirname}/../openapi.json`, 'utf8')) as { paths: Record<string, object> }).paths,
).flatMap(([path, item]) =>
  Object.entries(item as Record<string, Omit<Operation, 'method' | 'path'>>).map(([method, op]) => ({
    ...op,
    method: method.toUpperCase(),
    path,
  })),
);
const operation = (operationId: string): Operation => {
  const found = OPERATIONS.find((op) => op.operationId === operationId);
  if (found === undefined) throw new Error(`openapi.json has no operation ${operationId}`);
  return found;
};
/** The example Swagger UI prefills for a parameter. */
const example = (operationId: string, name: string): unknown =>
  operation(operationId).parameters?.find((p) => p.name === name)?.schema?.example;

const row = (op: Operation): readonly [operationId: string, method: string, path: string] => [
  op.operationId,
  op.method,
  op.path,
];
/** Not tried: its `url` must name a receiver of the user's own, which no example can. */
const UNTRIED = ['createWebhook'];
/** `[operationId, method, path]` of the operations of `method` in document order, but createBlog (tried first) and UNTRIED. */
const rowsOf = (method: string) =>
  OPERATIONS.filter(
    (op) => op.method === method && op.operationId !== 'createBlog' && !UNTRIED.includes(op.operationId),
  ).map(row);
/**
 * After createBlog, in this order: the other creates (a resource under the blog, on the ids the examples name), every
 * read, then the updates and the deletes, children before parents (the deletes in reverse document order).
 */
const EARLY_WRITES = rowsOf('POST');
const READS = rowsOf('GET');
const LATER_WRITES = [...rowsOf('PUT'), ...rowsOf('PATCH'), ...rowsOf('DELETE').reverse()];

/** Path parameters no example can name (ids made at random), typed in as a user would; set in beforeAll. */
let webhookId = '';
const TYPED_IN: Readonly<Record<string, () => Record<string, string>>> = {
  getWebhook: () => ({ id: webhookId }),
  listWebhookDeliveries: () => ({ id: webhookId }),
  deleteWebhook: () => ({ id: webhookId }),
};
const blogId = example('getBlog', 'id');
/** What an operation answers once the prefilled create ran: that blog, its two tags, its event, the webhook. */
const FOUND: Readonly<Record<string, object>> = {
  listBlogs: { total: 1, data: [expect.objectContaining({ id: blogId })] },
  getBlog: { id: blogId },
  getBlogBySlug: { id: blogId },
  listTags: { total: 2 },
  getTag: { count: 1 },
  listChanges: {
    data: expect.arrayContaining([
      expect.objectContaining({ type: 'blog.created' }),
      expect.objectContaining({ type: 'blog.published' }),
    ]) as unknown,
  },
  listWebhooks: { data: [expect.objectContaining({ id: expect.any(String) })] },
  updateBlog: { id: blogId, content: 'First post, revised' },
  patchBlog: { id: blogId, content: 'First post, revised' },
};

const inBrowser = skipReason === undefined ? it : it.skip;
const skipped = skipReason === undefined ? '' : ` (skipped: ${skipReason})`;

describe('Swagger UI', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let page: Page;
  /** Console errors (CSP violations among them), page errors and failed requests. */
  const problems: string[] = [];
  /** The block tryOut expanded, collapsed again after its test: the page then re-renders one block a click, not all. */
  let expanded: Locator | undefined;

  /** The operation's block, expanded and in "Try it out" mode. */
  async function tryOut(operationId: string): Promise<Locator> {
    const op = page.locator(`#operations-${operation(operationId).tags[0]}-${operationId}`);
    await op.locator('.opblock-summary').first().click();
    expanded = op;
    await op.locator('.try-out__btn').click();
    return op;
  }

  /** Executes the operation and returns the status and body Swagger UI renders; throws naming the fields it refused. */
  async function execute(op: Locator): Promise<{ status: string; body: string }> {
    await op.locator('.execute').click();
    const response = op.locator('.live-responses-table tr.response').first();
    const status = response.locator('.response-col_status');
    await status.waitFor().catch(async (e: Error) => {
      const rows = await op.locator('.parameters tr:has(.invalid)').all();
      const refused = await Promise.all(rows.map((row) => row.getAttribute('data-param-name')));
      throw new Error(`Swagger UI sent no request; fields it refused: ${refused.join(', ') || 'none'}. ${e.message}`);
    });
    const code = (await status.innerText()).trim();
    return { status: code, body: code === '204' ? '' : await response.locator('.highlight-code pre').innerText() };
  }

  beforeAll(async () => {
    t = await createTestApp({ WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' });
    if (skipReason !== undefined) return;
    const hook = await t.http
      .post('/api/v1/webhooks')
      .set('Authorization', bearer(t.token('hooks-admin', { scope: 'webhooks:admin' })))
      .send({ url: 'http://127.0.0.1:9/hook', events: ['blog.created'] })
      .expect(201);
    webhookId = (hook.body as { id: string }).id;
    await t.app.listen(0, '0.0.0.0');
    const { port } = (t.app.getHttpServer() as Server).address() as AddressInfo;
    // chromiumSandbox: false adds --no-sandbox, which Chromium needs when run as root in a container.
    browser = await chromium.launch({ executablePath: CHROMIUM, chromiumSandbox: false });
    page = await browser.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (m) => {
      // Chromium honours Cross-Origin-Opener-Policy only on https and says so: expected over http.
      if (m.type() === 'error' && !m.text().startsWith('The Cross-Origin-Opener-Policy header has been ignored'))
        problems.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
    await page.goto(`http://${address}:${port}/api/docs`);
  });

  afterEach(async () => {
    await expanded?.locator('.opblock-summary').first().click();
    expanded = undefined;
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the page and the API send a strict CSP without upgrade-insecure-requests', async () => {
    for (const res of [await t.http.get('/api/docs').expect(200), await t.http.get(BLOGS).expect(200)]) {
      const csp = String(res.headers['content-security-policy']);
      const directives = csp.split(';').map((d) => d.trim());
      expect(directives).toEqual(
        expect.arrayContaining(["default-src 'self'", "script-src 'self'", "object-src 'none'"]),
      );
      expect(csp).not.toContain('upgrade-insecure-requests');
    }
  });

  inBrowser(
    `renders the six blog operations, with no CSP violation, console error or failed request${skipped}`,
    async () => {
      const operations = {
        listBlogs: ['GET', '/api/v1/blogs', 'List, filter and search blogs, newest first by default'],
        createBlog: ['POST', '/api/v1/blogs', 'Create a blog'],
        getBlog: ['GET', '/api/v1/blogs/{id}', 'Read one blog'],
        updateBlog: ['PUT', '/api/v1/blogs/{id}', 'Replace a blog'],
        patchBlog: ['PATCH', '/api/v1/blogs/{id}', 'Change some fields of a blog'],
        deleteBlog: ['DELETE', '/api/v1/blogs/{id}', 'Delete a blog'],
      };
      await page
        .locator('.swagger-ui .opblock')
        .first()
        .waitFor()
        .catch((e: Error) => {
          throw new Error(`Swagger UI did not render: ${e.message}\n${problems.join('\n')}`);
        });

      for (const [id, [method, path, summary]] of Object.entries(operations)) {
        const op = page.locator(`#operations-blogs-${id}`);
        await expect(op.isVisible()).resolves.toBe(true);
        await expect(op.locator('.opblock-summary-method').innerText()).resolves.toBe(method);
        await expect(op.locator('.opblock-summary-path').getAttribute('data-path')).resolves.toBe(path);
        await expect(op.locator('.opblock-summary-description').innerText()).resolves.toBe(summary);
      }
      expect(problems).toEqual([]);
    },
  );

  inBrowser(`reads, whose token is optional, show no padlock; every write does${skipped}`, async () => {
    const padlocks = Object.fromEntries(
      await Promise.all(
        ['listBlogs', 'getBlog', 'createBlog', 'updateBlog', 'patchBlog', 'deleteBlog'].map(
          async (id) => [id, await page.locator(`#operations-blogs-${id} .authorization__btn`).count()] as const,
        ),
      ),
    );

    expect(padlocks).toEqual({ listBlogs: 0, getBlog: 0, createBlog: 1, updateBlog: 1, patchBlog: 1, deleteBlog: 1 });
  });

  it('tries every operation of the document but createWebhook', () => {
    const tried = ['createBlog', ...[...EARLY_WRITES, ...READS, ...LATER_WRITES].map(([id]) => id)];

    expect([...tried, ...UNTRIED].sort()).toEqual(OPERATIONS.map((op) => op.operationId).sort());
  });

  inBrowser(
    `Authorize, then createBlog with its prefilled body answers 201: the blog the path examples name${skipped}`,
    async () => {
      const before = problems.length;
      await page.locator('.auth-wrapper .authorize').click();
      const modal = page.locator('.modal-ux');
      await modal
        .locator('input')
        .first()
        .fill(t.token('alice', { scope: 'events:read webhooks:admin' }));
      await modal.locator('button[type=submit]').click();
      await modal.locator('.btn-done').click();

      const created = await execute(await tryOut('createBlog'));

      expect(created).toMatchObject({ status: '201' });
      expect(JSON.parse(created.body)).toMatchObject({
        id: blogId,
        slug: example('getBlogBySlug', 'slug'),
        status: 'published',
      });
      expect(problems.slice(before)).toEqual([]);
    },
  );

  inBrowser.each([...EARLY_WRITES, ...READS, ...LATER_WRITES])(
    `then %s (%s %s) with its prefilled values answers 2xx${skipped}`,
    async (operationId) => {
      const before = problems.length;
      const op = await tryOut(operationId);
      for (const [name, value] of Object.entries(TYPED_IN[operationId]?.() ?? {}))
        await op.locator(`tr[data-param-name="${name}"] input`).fill(value);

      const answer = await execute(op);

      expect(answer).toMatchObject({ status: expect.stringMatching(/^2\d\d$/) });
      if (FOUND[operationId]) expect(JSON.parse(answer.body)).toMatchObject(FOUND[operationId]);
      expect(problems.slice(before)).toEqual([]);
    },
  );
});

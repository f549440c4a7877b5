import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { Browser, chromium, Locator, Page } from 'playwright-core';
import { BLOGS, BODY } from './support/blog-api';
import { createTestApp, TestApp } from './support/test-app';

// Swagger UI used in a real Chromium. The page is opened at a non-loopback address: browsers exempt
// loopback from CSP's upgrade-insecure-requests, so only there would an upgrade to https (which this
// service does not speak) leave the page blank.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const UI_TIMEOUT_MS = 15_000;

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
const inBrowser = skipReason === undefined ? it : it.skip;
const skipped = skipReason === undefined ? '' : ` (skipped: ${skipReason})`;

describe('Swagger UI', () => {
  let t: TestApp;
  let browser: Browser | undefined;
  let page: Page;
  /** Console errors (CSP violations among them), page errors and failed requests. */
  const problems: string[] = [];

  /** The operation's block, expanded and in "Try it out" mode. */
  async function tryOut(operationId: string): Promise<Locator> {
    const op = page.locator(`#operations-blogs-${operationId}`);
    await op.locator('.opblock-summary').first().click();
    await op.locator('.try-out__btn').click();
    return op;
  }

  /** Executes the operation and returns the status and body Swagger UI renders. */
  async function execute(op: Locator): Promise<{ status: string; body: string }> {
    await op.locator('.execute').click();
    const response = op.locator('.live-responses-table tr.response').first();
    const status = response.locator('.response-col_status');
    await status.waitFor();
    return {
      status: (await status.innerText()).trim(),
      body: await response.locator('.highlight-code pre').innerText(),
    };
  }

  beforeAll(async () => {
    t = await createTestApp();
    if (skipReason !== undefined) return;
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

  inBrowser(
    `Authorize with a bearer token, then createBlog answers 201 and getBlog of the new id 200${skipped}`,
    async () => {
      await page.locator('.auth-wrapper .authorize').click();
      const modal = page.locator('.modal-ux');
      await modal.locator('input').first().fill(t.token('alice'));
      await modal.locator('button[type=submit]').click();
      await modal.locator('.btn-done').click();

      const create = await tryOut('createBlog');
      await create.locator('textarea.body-param__text').fill(JSON.stringify(BODY));
      const created = await execute(create);
      expect(created.status).toBe('201');
      const { id } = JSON.parse(created.body) as { id: number };

      const get = await tryOut('getBlog');
      await get.locator('tr[data-param-name="id"] input').fill(String(id));
      const read = await execute(get);
      expect(read.status).toBe('200');
      expect(JSON.parse(read.body)).toMatchObject({ id, ...BODY });

      expect(problems).toEqual([]);
    },
  );
});

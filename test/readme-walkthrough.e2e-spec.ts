import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BLOGS, createBlog } from './support/blog-api';
import { TEST_JWT_SECRET, useTestApp } from './support/test-app';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(120_000));

const ROOT = join(__dirname, '..');

/** The `sh` blocks of the README's curl walk-through, in order. */
function walkthroughBlocks(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((part) => part.startsWith('Walk-through with curl')) ?? '';
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]);
}

// The README's commands, run as written against a database that already holds other blogs.
describe("the README's curl walk-through", () => {
  const t = useTestApp({ RATE_LIMIT_ENABLED: 'false' });
  let output: string;
  let otherIds: number[];

  beforeAll(async () => {
    const port = await t.listen();
    otherIds = [(await createBlog(t, 'carol')).body.id, (await createBlog(t, 'carol')).body.id];
    const [start, ...rest] = walkthroughBlocks();
    // The first block starts the service and sets the variables: here the app runs already.
    const setup = start
      .split('\n')
      .filter((line) => !/^export JWT_SECRET=|^npm start/.test(line))
      .join('\n')
      .replace('http://localhost:3000', `http://127.0.0.1:${port}`);
    // Asynchronously: the app answering the commands runs in this process.
    ({ stdout: output } = await promisify(execFile)('bash', ['-euc', [setup, ...rest].join('\n')], {
      cwd: ROOT,
      env: { ...process.env, JWT_SECRET: TEST_JWT_SECRET },
      encoding: 'utf8',
    }));
  });

  it('has the blocks it walks through', () => {
    expect(walkthroughBlocks()).toHaveLength(6);
  });

  it('takes the new id from Location, not from a guess, and leaves the other blogs alone', async () => {
    const id = Number(output.split('\n')[0]);
    expect(Number.isInteger(id)).toBe(true);
    expect(otherIds).not.toContain(id);
    for (const other of otherIds) await t.http.get(`${BLOGS}/${other}`).expect(200);
  });

  it("reads it, lists, updates it as its owner, and another user's update is 403", () => {
    expect(output).toMatch(/^HTTP\/1\.1 200 OK/m);
    expect(output).toMatch(/^ETag: "\d+-1"/im);
    expect(output).toContain('"limit":10,"offset":0');
    expect(output).toContain('"title":"Hello again"');
    expect(output).toContain('"statusCode":403');
  });

  it("shows the list answer's every field in its comment", async () => {
    const comment = /^curl -s "\$BLOGS\?limit=10&offset=0" +# (.*)$/m.exec(walkthroughBlocks().join('\n'))?.[1] ?? '';
    const answer = await t.http.get(`${BLOGS}?limit=10&offset=0`).expect(200);

    expect(Object.keys(answer.body as object).filter((key) => !comment.includes(`"${key}":`))).toEqual([]);
    expect(comment).not.toBe('');
  });

  it('searches, then follows a cursor to the next page', () => {
    const id = Number(output.split('\n')[0]);
    expect(output).toContain(
      `{"data":[{"id":${id},"title":"Hello again"}],"total":1,"totalRelation":"eq","limit":10,"offset":0,"nextCursor":null}`,
    );
    expect(output).toMatch(
      /Link: <\/api\/v1\/blogs\?author=Alice&sort=-createdAt&limit=1&fields=id%2Ctitle&cursor=[\w.-]+>; rel="next"\r?$/im,
    );
    expect(output).toMatch(
      /\{"data":\[\{"id":\d+,"title":"[^"]+"\}\],"total":\d+,"totalRelation":"eq","limit":1,"offset":null,"nextCursor":"[\w.-]+"\}/,
    );
  });

  it('patches the title alone (the updated content kept), deletes the blog (204), and it then reads 404', async () => {
    expect(output).toContain('"title":"Hello, patched","content":"Edited","author":"Alice"');
    // The two commands print only the status (the PATCH answer before them ends without a newline).
    expect(output).toMatch(/\}204\n404\n/);
    const id = Number(output.split('\n')[0]);
    await t.http.get(`${BLOGS}/${id}`).expect(404);
  });

  it('keeps a draft from readers, schedules it, and once live reads it by slug and lists it under its tag', async () => {
    const lines = output.split('\n');
    const after = lines.slice(lines.indexOf('404') + 1);
    expect(after[0]).toBe('404');
    const scheduled = JSON.parse(after[1]) as { id: number; status: string; slug: string };
    expect(scheduled).toMatchObject({ status: 'scheduled', slug: 'coming-soon' });
    expect(JSON.parse(after[2])).toMatchObject({
      id: scheduled.id,
      status: 'published',
      tags: ['NestJS', 'Databases'],
    });
    expect(JSON.parse(after[3])).toEqual({ slug: 'nestjs', name: 'NestJS', count: 1 });
    expect(JSON.parse(after[4])).toMatchObject({ data: [{ id: scheduled.id, title: 'Coming soon' }], total: 1 });
    await t.http.get(`${BLOGS}/slug/coming-soon`).expect(200);
  });
});

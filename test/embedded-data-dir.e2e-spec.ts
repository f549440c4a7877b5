import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { bearer, BLOGS, BODY } from './support/blog-api';
import { useBuiltService } from './support/service-process';
import { createTestApp, TEST_JWT_SECRET, TestApp } from './support/test-app';
import type { TestDatabase } from './support/test-database';
import { patience } from './support/patience';

// The net under its slowest test, which waits for conditions (test/support/patience.js).
jest.setTimeout(patience(120_000));

// The embedded database is single-process: a second process on the same DATA_DIR (a second
// service, or the migration CLI) would overwrite the first one's writes. It must be refused at
// start-up with one line, and the directory must be free again once the holder has closed.
// It always uses an embedded database of its own, whatever the run's engine (ENGINE_FREE_SPECS: CI runs it once).

const ROOT = resolve(__dirname, '..');
const exec = promisify(execFile);

interface Outcome {
  readonly code: number | string | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end (at most 60 s) with the service variables set to `vars` only. */
async function runWith(command: string, args: readonly string[], vars: Record<string, string>): Promise<Outcome> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...vars };
  for (const name of ['DATABASE_URL', 'NODE_OPTIONS', 'E2E_SERVER_URL']) delete env[name];
  try {
    const { stdout, stderr } = await exec(command, [...args], { cwd: ROOT, env, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return { code: failed.code ?? null, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

const nonEmptyLines = (text: string): string[] => text.split(/\r?\n/).filter((line) => line.trim() !== '');

describe('embedded database: one process per DATA_DIR', () => {
  const built = useBuiltService();
  const dataDir = mkdtempSync(join(tmpdir(), 'blog-data-dir-e2e-'));
  const database: TestDatabase = {
    kind: 'embedded',
    env: { DATA_DIR: dataDir },
    drop: async () => rmSync(dataDir, { recursive: true, force: true }),
  };
  const serviceVars = { NODE_ENV: 'test', PORT: '0', JWT_SECRET: TEST_JWT_SECRET, DATA_DIR: dataDir };
  let holder: TestApp | undefined;
  let blogId: number;

  beforeAll(async () => {
    holder = await createTestApp({}, database);
    const created = await holder.http
      .post(BLOGS)
      .set('Authorization', bearer(holder.token('alice')))
      .send(BODY)
      .expect(201);
    blogId = created.body.id;
  });

  afterAll(async () => {
    await holder?.close();
  });

  it('a second service on the same DATA_DIR stops at start-up (exit ≠ 0) with one line naming DATA_DIR', async () => {
    const outcome = await runWith(process.execPath, [built.mainJs], serviceVars);
    expect(outcome.code).not.toBe(0);
    expect(outcome.code).not.toBeNull();
    expect(nonEmptyLines(outcome.stderr)).toEqual([expect.stringMatching(/^DATA_DIR .+ is in use by another process/)]);
  });

  it('the migration CLI on the same DATA_DIR is refused too, naming DATA_DIR', async () => {
    const outcome = await runWith('npm', ['run', '-s', 'migration:show'], serviceVars);
    expect(outcome.code).not.toBe(0);
    expect(`${outcome.stdout}\n${outcome.stderr}`).toMatch(/DATA_DIR .+ is in use by another process/);
  });

  it('the holder kept working meanwhile, and once it has closed the directory opens again with its data', async () => {
    const auth = bearer((holder as TestApp).token('alice'));
    await (holder as TestApp).http
      .put(`${BLOGS}/${blogId}`)
      .set('Authorization', auth)
      .send({ ...BODY, title: 'kept' })
      .expect(200);
    await (holder as TestApp).close({ keepDatabase: true });
    holder = await createTestApp({}, database);
    const read = await holder.http.get(`${BLOGS}/${blogId}`).expect(200);
    expect(read.body.title).toBe('kept');
  });
});

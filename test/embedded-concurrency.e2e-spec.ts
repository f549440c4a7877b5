import { bearer, BLOGS, countBlogs, sleep } from './support/blog-api';
import { useTestApp } from './support/test-app';
import { E2E_ENV } from './support/test-database';

// The embedded database (PGlite) is one session per process. If concurrent transactions shared it,
// a ROLLBACK in one would also undo the statements another request had already "committed". The
// service serialises transactions on it; these tests mix committing and rolling-back transactions
// with HTTP creates and check that exactly the committed rows survive.

const embedded = !process.env[E2E_ENV.serverUrl];
const describeEmbedded = embedded ? describe : describe.skip;

describeEmbedded('embedded database: concurrent transactions', () => {
  const t = useTestApp();
  let auth: string;

  beforeAll(async () => {
    auth = bearer(t.token('alice'));
  });

  async function titles(prefix: string): Promise<string[]> {
    const rows: { title: string }[] = await t.dataSource.query(
      'SELECT title FROM blogs WHERE title LIKE $1 ORDER BY title',
      [`${prefix}%`],
    );
    return rows.map((row) => row.title).sort();
  }

  /**
   * Runs 20 transactions (every third one fails after its INSERT, by `fail`) and 20 HTTP creates
   * all at once, interleaved, and checks that exactly the committed rows are stored.
   */
  async function mixedRun(
    prefix: string,
    fail: (i: number, manager: { query: (sql: string) => Promise<unknown> }) => Promise<void>,
  ): Promise<void> {
    const before = await countBlogs(t);
    const transactions: Promise<unknown>[] = [];
    const creates: Promise<{ status: number; body: { id?: number; title?: string } }>[] = [];
    for (let i = 0; i < 20; i += 1) {
      transactions.push(
        t.dataSource.transaction(async (manager) => {
          await manager.query('INSERT INTO blogs (title, content, author, owner_sub) VALUES ($1, $2, $3, $4)', [
            `${prefix}-tx-${String(i).padStart(2, '0')}`,
            'content',
            'author',
            'tx',
          ]);
          await sleep(2); // let the other work queue up while this transaction is open
          if (i % 3 === 0) await fail(i, manager);
        }),
      );
      creates.push(
        t.http
          .post(BLOGS)
          .set('Authorization', auth)
          .send({ title: `${prefix}-http-${String(i).padStart(2, '0')}`, content: 'content', author: 'author' })
          .then((res) => ({ status: res.status, body: res.body })),
      );
    }
    const [txResults, createResults] = await Promise.all([
      Promise.allSettled(transactions),
      Promise.allSettled(creates),
    ]);

    // the transactions failed exactly where they were made to fail
    const rejected = txResults.flatMap((result, i) => (result.status === 'rejected' ? [i] : []));
    expect(rejected).toEqual([0, 3, 6, 9, 12, 15, 18]);

    // every HTTP create succeeded and is readable, through the API and in the table
    const created = createResults.map((result) =>
      result.status === 'fulfilled' ? result.value : { status: -1, body: {} },
    );
    expect(created.map((c) => c.status)).toEqual(Array(20).fill(201));
    const ids = created.map((c) => c.body.id as number);
    expect(new Set(ids).size).toBe(20);
    for (const [i, id] of ids.entries()) {
      const read = await t.http.get(`${BLOGS}/${id}`);
      expect({ id, status: read.status, title: read.body.title }).toEqual({
        id,
        status: 200,
        title: `${prefix}-http-${String(i).padStart(2, '0')}`,
      });
    }
    expect(await titles(`${prefix}-http-`)).toHaveLength(20);

    // exactly the committed transaction rows exist, none of the rolled-back ones
    const committed = Array.from({ length: 20 }, (_, i) => i)
      .filter((i) => i % 3 !== 0)
      .map((i) => `${prefix}-tx-${String(i).padStart(2, '0')}`);
    expect(await titles(`${prefix}-tx-`)).toEqual(committed);

    const after = await countBlogs(t);
    expect(after).toBe(before + 20 + committed.length);
    const list = await t.http.get(`${BLOGS}?limit=1`).expect(200);
    expect(list.body.total).toBe(after);
  }

  it('a transaction that throws and rolls back never erases rows committed concurrently by other transactions or HTTP requests', async () => {
    await mixedRun('throw', async (i) => {
      throw new Error(`rollback ${i}`);
    });
  });

  it('a transaction aborted by an SQL error rolls back alone; concurrent commits survive and the session stays usable', async () => {
    await mixedRun('sqlerr', async (_i, manager) => {
      await manager.query('SELECT 1 / 0');
    });
  });

  it('after the mixed runs, a new create and update over HTTP still work', async () => {
    const created = await t.http
      .post(BLOGS)
      .set('Authorization', auth)
      .send({ title: 'after', content: 'content', author: 'author' })
      .expect(201);
    await t.http
      .put(`${BLOGS}/${created.body.id}`)
      .set('Authorization', auth)
      .send({ title: 'after-updated', content: 'content', author: 'author' })
      .expect(200);
    const read = await t.http.get(`${BLOGS}/${created.body.id}`).expect(200);
    expect(read.body.title).toBe('after-updated');
  });
});

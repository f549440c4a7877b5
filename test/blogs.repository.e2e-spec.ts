import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Blog } from '../src/blogs/blog.entity';
import { BlogsRepository } from '../src/blogs/blogs.repository';
import { databaseConfig } from '../src/config/database.config';
import { SLOW_LANE, StatementRunner } from '../src/database/statement-runner';
import { useRepositoryModule } from './support/repository-module';
import { E2E_ENV } from './support/test-database';

const input = (n: number) => ({ title: `Title ${n}`, content: `Content ${n}`, author: `Author ${n}` });

describe('BlogsRepository on the real database', () => {
  const db = useRepositoryModule();
  let repository: BlogsRepository;
  let dataSource: DataSource;
  /** A blog of `alice` stored before each test. */
  let created: Blog;

  beforeAll(() => {
    ({ repository, dataSource } = db);
  });

  beforeEach(async () => {
    await dataSource.query('TRUNCATE "blogs"');
    created = await repository.insert(input(1), 'alice');
  });

  // The embedded database has one session and no statement names.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    'sends its statements named, parsed once per connection, unless DATABASE_PREPARED_STATEMENTS is false',
    async () => {
      const { preparedStatements } = db.moduleRef.get<{ preparedStatements: boolean }>(databaseConfig.KEY);
      await repository.findById(created.id, 'primary');

      // Every connection of the primary's pool at once, each asked what its session has prepared.
      const pool = (dataSource.driver as PostgresDriver).master as Pool;
      const clients = await Promise.all(Array.from({ length: pool.totalCount }, () => pool.connect()));
      const names = await Promise.all(
        clients.map(async (client) => {
          const { rows } = await client.query<{ name: string }>('SELECT name FROM pg_prepared_statements');
          client.release();
          return rows.map((row) => row.name);
        }),
      );

      const expected = expect.arrayContaining(['blogs.insert', 'blogs.find-by-id']);
      if (preparedStatements) expect(names.flat()).toEqual(expected);
      else expect(names.flat()).not.toEqual(expected);
    },
  );

  // The embedded database has no statement_timeout to give a slow statement more time.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    'runs a long read with its own statement_timeout and no parallel workers, for its transaction only',
    async () => {
      const sql = db.moduleRef.get(StatementRunner);
      const SETTINGS = {
        name: 'test.settings',
        text: `SELECT current_setting('statement_timeout') AS "timeout",
          current_setting('max_parallel_workers_per_gather') AS "workers"`,
      };
      const read = async (lane: 'fast' | 'slow' | 'long') =>
        (await sql.onReplica<{ timeout: string; workers: string }>(SETTINGS, [], lane)).rows[0];

      const fast = await read('fast');
      await expect(read('long')).resolves.toEqual({ timeout: `${SLOW_LANE.statementMs / 1000}s`, workers: '0' });
      await expect(read('slow')).resolves.toEqual(fast);
      expect(fast.timeout).toBe('2s');
      expect(fast.workers).not.toBe('0');
      // Every pooled session again, after the lane's transactions ended.
      const after = await Promise.all(Array.from({ length: 12 }, () => read('fast')));
      expect(after).toEqual(Array.from({ length: 12 }, () => fast));
    },
  );

  it('insert stores the blog with id, equal timestamps and version 1, and findById reads it back', async () => {
    expect(created).toBeInstanceOf(Blog);
    expect(created).toMatchObject({ ...input(1), ownerSub: 'alice', version: 1 });
    expect(created.id).toBeGreaterThan(0);
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(created.updatedAt).toEqual(created.createdAt);
    await expect(repository.findById(created.id)).resolves.toEqual(created);
    await expect(repository.findById(created.id + 1)).resolves.toBeNull();
  });

  it('findPage gives newest first with the exact total, from either end of the list', async () => {
    const ids: number[] = [created.id];
    for (let n = 1; n < 7; n += 1) ids.push((await repository.insert(input(n), 'alice')).id);
    const newestFirst = [...ids].reverse();

    const pages = await Promise.all([0, 2, 4, 6, 7, 50].map((offset) => repository.findPage(3, offset)));

    expect(pages.map((page) => page.total)).toEqual([7, 7, 7, 7, 7, 7]);
    expect(pages.map((page) => page.items.map((blog) => blog.id))).toEqual([
      newestFirst.slice(0, 3),
      newestFirst.slice(2, 5),
      newestFirst.slice(4, 7),
      newestFirst.slice(6, 7),
      [],
      [],
    ]);
    expect(pages[0].items[0]).toBeInstanceOf(Blog);
    expect(pages[0].items[0].ownerSub).toBe('alice');
  });

  it('findPage of an empty table is empty with total 0', async () => {
    await dataSource.query('TRUNCATE "blogs"');

    await expect(repository.findPage(10, 0)).resolves.toEqual({ items: [], total: 0 });
  });

  it('update replaces the fields, moves updatedAt forward and increments version', async () => {
    const first = await repository.update(created.id, input(2), 'alice');
    const second = await repository.update(created.id, input(2), undefined);

    expect(first).toMatchObject({ ...input(2), id: created.id, ownerSub: 'alice', version: 2 });
    expect(second?.version).toBe(3);
    expect(first!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    expect(second!.updatedAt.getTime()).toBeGreaterThan(first!.updatedAt.getTime());
    expect(second!.createdAt).toEqual(created.createdAt);
    await expect(repository.findById(created.id)).resolves.toEqual(second);
  });

  it.each([
    ['another owner', 'bob', {}, false],
    ['the owner', 'alice', {}, true],
    ['a matching version', 'alice', { match: [9, 1] }, true],
    ['no matching version', 'alice', { match: [2] }, false],
    ['an empty match list', 'alice', { match: [] }, false],
    ['an excluded version', 'alice', { noneMatch: [1] }, false],
    ['another excluded version', 'alice', { noneMatch: [2] }, true],
    ['match and exclusion of the same version', undefined, { match: [1], noneMatch: [1] }, false],
  ])('update with %s (owner %s, versions %j) changes the row: %s', async (_name, owner, versions, changes) => {
    const updated = await repository.update(created.id, input(2), owner, versions);

    expect(updated === null).toBe(!changes);
    await expect(repository.findById(created.id)).resolves.toMatchObject({ version: changes ? 2 : 1 });
  });

  it('update of a missing blog changes nothing', async () => {
    await expect(repository.update(123_456, input(1), undefined)).resolves.toBeNull();
  });

  it('update with some fields sets those and keeps the others, moving updatedAt and version as a replacement does', async () => {
    const updated = await repository.update(created.id, { content: 'New content' }, 'alice');

    expect(updated).toMatchObject({ title: 'Title 1', content: 'New content', author: 'Author 1', version: 2 });
    expect(updated!.updatedAt.getTime()).toBeGreaterThan(created.updatedAt.getTime());
    await expect(repository.findById(created.id)).resolves.toEqual(updated);
  });

  /** The number of blogs as `count(*)` sees it and as the trigger-kept counter holds it. */
  async function counts(): Promise<{ rows: number; counter: number }> {
    const [row] = await dataSource.query<{ rows: string | number; counter: string | number }[]>(
      'SELECT (SELECT count(*) FROM "blogs") AS rows, (SELECT sum("n") FROM "blog_counts") AS counter',
    );
    return { rows: Number(row.rows), counter: Number(row.counter) };
  }

  it('delete removes the row and the counter follows; a second delete finds nothing', async () => {
    const doomed = await repository.insert(input(2), 'alice');
    await expect(counts()).resolves.toEqual({ rows: 2, counter: 2 });

    await expect(repository.delete(doomed.id, 'alice')).resolves.toBe(true);

    await expect(repository.findById(doomed.id)).resolves.toBeNull();
    await expect(repository.findById(created.id)).resolves.toEqual(created);
    await expect(counts()).resolves.toEqual({ rows: 1, counter: 1 });
    await expect(repository.delete(doomed.id, 'alice')).resolves.toBe(false);
    await expect(counts()).resolves.toEqual({ rows: 1, counter: 1 });
  });

  it.each([
    ['another owner', 'bob', {}, false],
    ['the owner', 'alice', {}, true],
    ['any owner', undefined, {}, true],
    ['a matching version', 'alice', { match: [9, 1] }, true],
    ['no matching version', 'alice', { match: [2] }, false],
    ['an empty match list', 'alice', { match: [] }, false],
    ['an excluded version', 'alice', { noneMatch: [1] }, false],
    ['another excluded version', 'alice', { noneMatch: [2] }, true],
  ])('delete with %s (owner %s, versions %j) deletes: %s', async (_name, owner, versions, deletes) => {
    await expect(repository.delete(created.id, owner, versions)).resolves.toBe(deletes);
    await expect(repository.findById(created.id)).resolves.toEqual(deletes ? null : created);
    await expect(counts()).resolves.toEqual(deletes ? { rows: 0, counter: 0 } : { rows: 1, counter: 1 });
  });
});

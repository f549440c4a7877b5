/**
 * @pgbouncer-and-replica CI runs this spec through PgBouncer and with a read replica too (test/support/spec-sets.js).
 */
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { Blog } from '../src/blogs/blog.entity';
import {
  BlogChanges,
  BlogListQuery,
  BlogsRepository,
  NewBlog,
  SlugTakenError,
  WriteCondition,
} from '../src/blogs/blogs.repository';
import type { VersionCondition } from '../src/common/http/versioned-entity-tag';
import type { PublishedAtChange } from '../src/blogs/publication';
import { databaseConfig } from '../src/config/database.config';
import { SERVER_POOL_SIZE } from '../src/database/data-source-options';
import { SLOW_LANE, StatementRunner } from '../src/database/statement-runner';
import { ReplaceBlogSlugGaps1795401900000 } from '../src/blogs/migrations/1795401900000-ReplaceBlogSlugGaps';
import { ReserveBlogSlugSuffixes1795402700000 } from '../src/blogs/migrations/1795402700000-ReserveBlogSlugSuffixes';
import { bulkSeed } from './support/bulk-seed';
import { useRepositoryModule } from './support/repository-module';
import { E2E_ENV } from './support/test-database';

const input = (n: number) => ({ title: `Title ${n}`, content: `Content ${n}`, author: `Author ${n}` });
/** A new blog of `owner`, published at its creation, with the slug of its title made free. */
const newBlog = (n: number, owner = 'alice'): NewBlog => ({
  ...input(n),
  ownerSub: owner,
  publishedAt: new Date('2026-01-01T00:00:00.000Z'),
  slug: { value: `title-${n}`, explicit: false },
  tags: { slugs: [], names: [] },
});
/** Changes that keep `published_at` and the slug. */
const changes = (fields: Partial<ReturnType<typeof input>>): BlogChanges => ({
  ...fields,
  publication: { change: { kind: 'keep' } },
});
/** The condition of a write by `owner` (undefined: an admin) under `versions`, now. */
const by = (owner: string | undefined, versions: VersionCondition = {}): WriteCondition => ({
  owner,
  versions,
  now: new Date(),
});

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
    await dataSource.query('TRUNCATE "blogs" CASCADE');
    created = await repository.insert(newBlog(1));
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

      const expected = expect.arrayContaining(['blogs.insert-untagged', 'blogs.find-by-id']);
      if (preparedStatements) expect(names.flat()).toEqual(expected);
      else expect(names.flat()).not.toEqual(expected);
    },
  );

  // The embedded database has no statement_timeout to give a slow statement more time.
  (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
    'runs a long read with its own statement_timeout, work_mem and no parallel workers, for its transaction only',
    async () => {
      const sql = db.moduleRef.get(StatementRunner);
      const SETTINGS = {
        name: 'test.settings',
        text: `SELECT current_setting('statement_timeout') AS "timeout",
          current_setting('max_parallel_workers_per_gather') AS "workers", current_setting('work_mem') AS "memory"`,
      };
      const read = async (lane: 'fast' | 'slow' | 'long') =>
        (await sql.onReplica<{ timeout: string; workers: string; memory: string }>(SETTINGS, [], lane)).rows[0];

      const fast = await read('fast');
      await expect(read('long')).resolves.toEqual({
        timeout: `${SLOW_LANE.statementMs / 1000}s`,
        workers: '0',
        memory: SLOW_LANE.workMem,
      });
      await expect(read('slow')).resolves.toEqual(fast);
      expect(fast.timeout).toBe('2s');
      expect(fast.workers).not.toBe('0');
      expect(fast.memory).not.toBe(SLOW_LANE.workMem);
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
    for (let n = 1; n < 7; n += 1) ids.push((await repository.insert(newBlog(n))).id);
    const newestFirst = [...ids].reverse();

    const pages = await Promise.all([0, 2, 4, 6, 7, 50].map((offset) => repository.findPage(3, offset, new Date())));

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
    await dataSource.query('TRUNCATE "blogs" CASCADE');

    await expect(repository.findPage(10, 0, new Date())).resolves.toEqual({ items: [], total: 0 });
  });

  it('update replaces the fields, moves updatedAt forward and increments version', async () => {
    const first = await repository.update(created.id, changes(input(2)), by('alice'));
    const second = await repository.update(created.id, changes(input(2)), by(undefined));

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
    ['a matching version', 'alice', { match: ['9', '1'] }, true],
    ['no matching version', 'alice', { match: ['2'] }, false],
    ['an empty match list', 'alice', { match: [] }, false],
    ['an excluded version', 'alice', { noneMatch: ['1'] }, false],
    ['another excluded version', 'alice', { noneMatch: ['2'] }, true],
    ['match and exclusion of the same version', undefined, { match: ['1'], noneMatch: ['1'] }, false],
  ])('update with %s (owner %s, versions %j) changes the row: %s', async (_name, owner, versions, changed) => {
    const updated = await repository.update(created.id, changes(input(2)), by(owner, versions));

    expect(updated === null).toBe(!changed);
    await expect(repository.findById(created.id)).resolves.toMatchObject({ version: changed ? 2 : 1 });
  });

  it('update of a missing blog changes nothing', async () => {
    await expect(repository.update(123_456, changes(input(1)), by(undefined))).resolves.toBeNull();
  });

  it('update with some fields sets those and keeps the others, moving updatedAt and version as a replacement does', async () => {
    const updated = await repository.update(created.id, changes({ content: 'New content' }), by('alice'));

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
    const doomed = await repository.insert(newBlog(2));
    await expect(counts()).resolves.toEqual({ rows: 2, counter: 2 });

    await expect(repository.delete(doomed.id, by('alice'))).resolves.toBe(true);

    await expect(repository.findById(doomed.id)).resolves.toBeNull();
    await expect(repository.findById(created.id)).resolves.toEqual(created);
    await expect(counts()).resolves.toEqual({ rows: 1, counter: 1 });
    await expect(repository.delete(doomed.id, by('alice'))).resolves.toBe(false);
    await expect(counts()).resolves.toEqual({ rows: 1, counter: 1 });
  });

  it.each([
    ['another owner', 'bob', {}, false],
    ['the owner', 'alice', {}, true],
    ['any owner', undefined, {}, true],
    ['a matching version', 'alice', { match: ['9', '1'] }, true],
    ['no matching version', 'alice', { match: ['2'] }, false],
    ['an empty match list', 'alice', { match: [] }, false],
    ['an excluded version', 'alice', { noneMatch: ['1'] }, false],
    ['another excluded version', 'alice', { noneMatch: ['2'] }, true],
  ])('delete with %s (owner %s, versions %j) deletes: %s', async (_name, owner, versions, deletes) => {
    await expect(repository.delete(created.id, by(owner, versions))).resolves.toBe(deletes);
    await expect(repository.findById(created.id)).resolves.toEqual(deletes ? null : created);
    await expect(counts()).resolves.toEqual(deletes ? { rows: 0, counter: 0 } : { rows: 1, counter: 1 });
  });

  describe('publishing and slugs', () => {
    const NOW = new Date('2026-06-01T00:00:00.000Z');
    const HOUR = 3_600_000;
    const withSlug = (n: number, value: string, explicit = false): NewBlog => ({
      ...newBlog(n),
      slug: { value, explicit },
    });
    const publishedAt = (n: number, at: Date | null): NewBlog => ({ ...newBlog(n), publishedAt: at });
    /** The rows of blog_slugs as slug → blog id. */
    const earlierSlugs = async (): Promise<Record<string, number>> =>
      Object.fromEntries(
        (await dataSource.query<{ slug: string; blog_id: number }[]>('SELECT "slug", "blog_id" FROM "blog_slugs"')).map(
          (row) => [row.slug, Number(row.blog_id)],
        ),
      );

    it('makes the lowest free slug of a base, skipping current and earlier slugs', async () => {
      const second = await repository.insert(newBlog(1));
      expect([created.slug, second.slug]).toEqual(['title-1', 'title-1-2']);

      // title-1-3 becomes an earlier slug: still taken for a new blog.
      const third = await repository.insert(newBlog(1));
      await repository.update(third.id, { ...changes({}), slug: 'renamed' }, by('alice'));
      await expect(repository.insert(newBlog(1))).resolves.toMatchObject({ slug: 'title-1-4' });
    });

    it("does not give a new blog a base that is only another blog's earlier slug", async () => {
      await repository.update(created.id, { ...changes({}), slug: 'moved' }, by('alice'));

      await expect(repository.insert(newBlog(1))).resolves.toMatchObject({ slug: 'title-1-2' });
      await expect(repository.findBySlug('title-1')).resolves.toMatchObject({ id: created.id });
    });

    // The embedded database has one session: the open transaction would hold it.
    (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
      "does not give a new blog a base that another blog's uncommitted rename is leaving",
      async () => {
        const rename = dataSource.createQueryRunner();
        await rename.startTransaction();
        try {
          await rename.query(`UPDATE "blogs" SET "slug" = 'moved' WHERE "id" = $1`, [created.id]);

          // Answered while the rename is open: the base is still taken in the create's snapshot.
          await expect(repository.insert(newBlog(1))).resolves.toMatchObject({ slug: 'title-1-2' });
          await rename.commitTransaction();
        } finally {
          if (rename.isTransactionActive) await rename.rollbackTransaction();
          await rename.release();
        }
        await expect(repository.findBySlug('title-1')).resolves.toMatchObject({ id: created.id, slug: 'moved' });
      },
    );

    it('gives ten concurrent creates of one title exactly the base and -2 … -10', async () => {
      await dataSource.query('TRUNCATE "blogs" CASCADE');
      const blogs = await Promise.all(Array.from({ length: 10 }, () => repository.insert(withSlug(1, 'same'))));
      const expected = ['same', ...Array.from({ length: 9 }, (_, i) => `same-${i + 2}`)];
      expect(blogs.map((blog) => blog.slug).sort()).toEqual(expected.sort());
    });

    it('cuts a long base to leave room for the suffix', async () => {
      const base = `${'a'.repeat(150)}-${'b'.repeat(49)}`;
      await repository.insert(withSlug(1, base));
      await expect(repository.insert(withSlug(2, base))).resolves.toMatchObject({
        slug: `${'a'.repeat(150)}-${'b'.repeat(47)}-2`,
      });
    });

    describe('the lowest free suffix', () => {
      /** A create of the base `same`. */
      const make = () => repository.insert(withSlug(1, 'same'));
      /** The slugs of `count` creates of `same`, one after the other. */
      const makeSlugs = async (count: number): Promise<string[]> => {
        const slugs: string[] = [];
        for (let i = 0; i < count; i += 1) slugs.push((await make()).slug);
        return slugs;
      };
      const rename = (blog: Blog, slug: string) => repository.update(blog.id, { ...changes({}), slug }, by('alice'));

      beforeEach(() => dataSource.query('TRUNCATE "blogs" CASCADE'));

      it.each<[string, (blogs: Blog[]) => Promise<unknown>, string[]]>([
        ['a deleted blog frees its suffix', ([, , b3]) => repository.delete(b3.id, by('alice')), ['same-3', 'same-5']],
        [
          'deletes free suffixes that join the gaps beside them',
          async ([, b2, b3, b4]) => {
            for (const blog of [b3, b2, b4]) await repository.delete(blog.id, by('alice'));
          },
          ['same-2', 'same-3', 'same-4', 'same-5'],
        ],
        ['a renamed blog still holds its earlier slug', ([, b2]) => rename(b2, 'elsewhere'), ['same-5', 'same-6']],
        [
          'a renamed blog, once deleted, frees its current and earlier slugs',
          async ([, b2, b3]) => {
            await rename(b2, 'same-9');
            await rename(b3, 'elsewhere');
            await repository.delete(b2.id, by('alice'));
          },
          ['same-2', 'same-5', 'same-6', 'same-7', 'same-8', 'same-9', 'same-10'],
        ],
        ['a rename to a free same-n takes it', ([, b2]) => rename(b2, 'same-6'), ['same-5', 'same-7', 'same-8']],
        [
          'explicit slugs same-n take their suffixes, however far',
          async () => {
            for (const [n, slug] of ['same-7', 'same-5', 'same-1', 'same-02'].entries()) {
              await repository.insert(withSlug(n + 2, slug, true));
            }
          },
          ['same-6', 'same-8', 'same-9'],
        ],
        [
          "an explicit slug that takes another blog's earlier one keeps it held",
          async ([, b2]) => {
            await rename(b2, 'elsewhere');
            await repository.insert(withSlug(2, 'same-2', true));
            await repository.delete(b2.id, by('alice'));
          },
          ['same-5', 'same-6'],
        ],
        [
          'a writer that knows no slugs, and a base that ends in digits',
          () =>
            dataSource.query(`INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "slug")
            VALUES ('t', 'c', 'a', 'x', 'same-5'), ('t', 'c', 'a', 'x', 'same-5-2')`),
          ['same-6', 'same-7'],
        ],
      ])('after same, same-2 … same-4: %s', async (_name, step, expected) => {
        const blogs = [await make(), await make(), await make(), await make()];
        expect(blogs.map((blog) => blog.slug)).toEqual(['same', 'same-2', 'same-3', 'same-4']);

        await step(blogs);

        await expect(makeSlugs(expected.length)).resolves.toEqual(expected);
      });

      it('TRUNCATE frees every suffix', async () => {
        await makeSlugs(3);
        await dataSource.query('TRUNCATE "blogs" CASCADE');
        await expect(makeSlugs(2)).resolves.toEqual(['same', 'same-2']);
      });

      it('migration ReplaceBlogSlugGaps starts each base at the lowest free suffix of the gaps it replaces', async () => {
        const blogs: Blog[] = [];
        for (let i = 0; i < 6; i += 1) blogs.push(await make());
        const [, b2, b3] = blogs;
        await rename(b2, 'other-4');
        await repository.delete(b3.id, by('alice'));
        await repository.insert(withSlug(9, 'same-12', true));

        const runner = dataSource.createQueryRunner();
        try {
          await runner.startTransaction();
          const migration = new ReplaceBlogSlugGaps1795401900000();
          const reserving = new ReserveBlogSlugSuffixes1795402700000();
          // Back to the gaps, rebuilt from the slugs held, and forward again from them: a base at 2 (other) needs no row.
          await reserving.down(runner);
          await migration.down(runner);
          await migration.up(runner);
          await reserving.up(runner);
          await runner.commitTransaction();
        } finally {
          if (runner.isTransactionActive) await runner.rollbackTransaction();
          await runner.release();
        }

        await expect(
          dataSource.query(`SELECT "base", "next"::text FROM "blog_slug_bases" ORDER BY "base"`),
        ).resolves.toEqual([{ base: 'same', next: '3' }]);
        await expect(dataSource.query(`SELECT count(*)::int AS "n" FROM "blog_slug_freed"`)).resolves.toEqual([
          { n: 0 },
        ]);
        await expect(makeSlugs(7)).resolves.toEqual([
          'same-3',
          'same-7',
          'same-8',
          'same-9',
          'same-10',
          'same-11',
          'same-13',
        ]);
      });

      /**
       * Runs `writes` at once, counting the statements they send. On a server they queue behind a lock on blogs and
       * start together once it goes, the worst race; the pool's other two connections hold the lock and watch the queue.
       */
      const releasedTogether = async <T>(
        writes: (() => Promise<T>)[],
      ): Promise<{ results: T[]; statements: number }> => {
        const statements = jest.spyOn(db.moduleRef.get(StatementRunner), 'onPrimary');
        const onServer = Boolean(process.env[E2E_ENV.serverUrl] ?? process.env.DATABASE_URL);
        const holder = onServer ? dataSource.createQueryRunner() : undefined;
        try {
          await holder?.startTransaction();
          await holder?.query('LOCK TABLE "blogs" IN SHARE MODE');
          const results = Promise.all(writes.map((write) => write()));
          while (holder) {
            const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
              `SELECT count(*)::int AS "waiting" FROM pg_stat_activity WHERE "wait_event_type" = 'Lock'
                AND ("query" LIKE '%INSERT INTO "blogs"%' OR "query" LIKE '%DELETE FROM "blogs"%')`,
            );
            if (waiting >= writes.length) break;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          await holder?.commitTransaction();
          return { results: await results, statements: statements.mock.calls.length };
        } finally {
          if (holder?.isTransactionActive) await holder.rollbackTransaction();
          await holder?.release();
          statements.mockRestore();
        }
      };
      const CONCURRENT = SERVER_POOL_SIZE - 2;
      const suffixOf = (blog: Blog) => Number(blog.slug.slice('same-'.length));

      it('concurrent creates of one base take the free suffixes in one round each, none tried again', async () => {
        await makeSlugs(4);
        await repository.insert(withSlug(2, 'same-7', true));

        const { results, statements } = await releasedTogether(Array.from({ length: CONCURRENT }, () => make));

        const suffixes = results.map(suffixOf).sort((a, b) => a - b);
        expect(suffixes).toEqual([5, 6, ...Array.from({ length: CONCURRENT - 2 }, (_, i) => i + 8)]);
        expect(statements).toBe(CONCURRENT);
      });

      it('concurrent creates of numbered titles take their own slugs beside creates of one title and a delete', async () => {
        const [, , b3] = [await make(), await make(), await make(), await make()];
        const numbered = Array.from({ length: CONCURRENT / 2 }, (_, i) => `same-${1_000 + i}`);
        const repeated = CONCURRENT / 2 - 1;

        const { results, statements } = await releasedTogether<Blog | boolean>([
          ...numbered.map((slug, i) => () => repository.insert(withSlug(i + 2, slug))),
          ...Array.from({ length: repeated }, () => make),
          () => repository.delete(b3.id, by('alice')),
        ]);
        const [next] = await makeSlugs(1);

        expect(results.slice(0, numbered.length).map((blog) => (blog as Blog).slug)).toEqual(numbered);
        // Whether the delete came before or after some of them, the lowest free suffixes went in order: same-3 (freed),
        // then same-5 on.
        const suffixes = [...(results.slice(numbered.length, -1) as Blog[]), { slug: next } as Blog].map(suffixOf);
        expect(suffixes.sort((a, b) => a - b)).toEqual([3, ...Array.from({ length: repeated }, (_, i) => i + 5)]);
        expect(results.at(-1)).toBe(true);
        expect(statements).toBe(CONCURRENT);
        // The creates of a free slug took no base's row.
        await expect(dataSource.query(`SELECT "base" FROM "blog_slug_bases"`)).resolves.toEqual([{ base: 'same' }]);
      });

      // The embedded database has one session.
      (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
        "a create of a free numbered slug and a delete of a suffix never wait for the base's row, locked by a create",
        async () => {
          const [, , b3] = [await make(), await make(), await make()];
          const holder = dataSource.createQueryRunner();
          try {
            await holder.startTransaction();
            await expect(holder.query(`SELECT "blog_slug_suffix"('same') AS "slug"`)).resolves.toEqual([
              { slug: 'same-4' },
            ]);
            const [{ pid: holderPid }] = (await holder.query(`SELECT pg_backend_pid() AS "pid"`)) as { pid: number }[];
            let done = false;
            const writes = Promise.all([
              repository.insert(withSlug(5, 'same-9')),
              repository.delete(b3.id, by('alice')),
            ]).finally(() => (done = true));
            while (!done) {
              // On what the holder locked; the two writes may meet on their block's row of `sitemap_blocks` when their
              // connections share a shard (docs/architecture.md, "Feeds and sitemaps"), which is not the slugs' doing.
              const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
                `SELECT count(*)::int AS "waiting" FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids("pid"))`,
                [holderPid],
              );
              expect(waiting).toBe(0);
            }
            await expect(writes).resolves.toEqual([expect.objectContaining({ slug: 'same-9' }), true]);
          } finally {
            await holder.rollbackTransaction();
            await holder.release();
          }
        },
      );

      // The embedded database has one session.
      (process.env[E2E_ENV.serverUrl] ? it.each : it.skip.each)([
        ['commits', 'commitTransaction', ['same-5', 'same-6']],
        ['rolls back', 'rollbackTransaction', ['same-3', 'same-5']],
      ] as const)(
        'a create of one title never waits for another in progress, which then %s: the lowest free suffixes follow',
        async (_name, end, expected) => {
          await makeSlugs(2);
          const holder = dataSource.createQueryRunner();
          try {
            await holder.startTransaction();
            await expect(
              holder.query(`INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "slug")
                VALUES ('t', 'c', 'a', 'x', "blog_slug_suffix"('same')) RETURNING "slug"`),
            ).resolves.toEqual([{ slug: 'same-3' }]);
            const [{ pid: holderPid }] = (await holder.query(`SELECT pg_backend_pid() AS "pid"`)) as { pid: number }[];
            let done = false;
            const create = make().finally(() => (done = true));
            while (!done) {
              const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
                `SELECT count(*)::int AS "waiting" FROM pg_stat_activity WHERE $1::int = ANY (pg_blocking_pids("pid"))`,
                [holderPid],
              );
              expect(waiting).toBe(0);
            }
            await expect(create).resolves.toMatchObject({ slug: 'same-4' });
            await holder[end]();
          } finally {
            if (holder.isTransactionActive) await holder.rollbackTransaction();
            await holder.release();
          }

          await expect(makeSlugs(2)).resolves.toEqual(expected);
        },
      );

      // The embedded database has one session.
      (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
        "the first create of a base that needs a suffix waits for a delete of one of the base's slugs in progress",
        async () => {
          await dataSource.query(`INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "slug")
            VALUES ('t', 'c', 'a', 'x', 'same'), ('t', 'c', 'a', 'x', 'same-2'), ('t', 'c', 'a', 'x', 'same-3')`);
          const deleter = dataSource.createQueryRunner();
          try {
            await deleter.startTransaction();
            await deleter.query(`DELETE FROM "blogs" WHERE "slug" = 'same-2'`);
            const create = make();
            for (;;) {
              const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
                `SELECT count(*)::int AS "waiting" FROM pg_stat_activity WHERE "wait_event" = 'advisory'`,
              );
              if (waiting === 1) break;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
            await deleter.commitTransaction();

            await expect(create).resolves.toMatchObject({ slug: 'same-2' });
            await expect(makeSlugs(1)).resolves.toEqual(['same-4']);
          } finally {
            if (deleter.isTransactionActive) await deleter.rollbackTransaction();
            await deleter.release();
          }
        },
      );

      // The embedded database has one session.
      (process.env[E2E_ENV.serverUrl] ? it : it.skip)(
        "a delete of a suffix and the base's first create that needs one, meeting on a tag's counter, never deadlock",
        async () => {
          await dataSource.query(`INSERT INTO "tags" ("slug", "name") VALUES ('t', 't')`);
          await dataSource.query(`INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "published_at", "slug",
            "tag_slugs") VALUES ('t', 'c', 'a', 'x', now(), 'same', '{}'), ('t', 'c', 'a', 'x', now(), 'same-2', '{t}')`);
          /** Whether `count` sessions wait on `event` (pg_stat_activity's wait_event). */
          const waiting = async (event: string, count: number): Promise<void> => {
            for (;;) {
              const [{ n }] = await dataSource.query<{ n: number }[]>(
                `SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "wait_event" = $1`,
                [event],
              );
              if (n >= count) return;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          };
          const gate = dataSource.createQueryRunner();
          const deleter = dataSource.createQueryRunner();
          try {
            // The create takes the base's advisory lock, then waits for the gate's uncommitted row of the base.
            await gate.startTransaction();
            await gate.query(`INSERT INTO "blog_slug_bases" ("base", "next") VALUES ('same', 2)`);
            const create = repository.insert({ ...withSlug(1, 'same'), tags: { slugs: ['t'], names: ['t'] } });
            await waiting('transactionid', 1);
            // The delete of same-2 waits for that lock; were it to take the tag's counter row first, the create would
            // then wait for the delete.
            await deleter.startTransaction();
            const deleted = deleter.query(`DELETE FROM "blogs" WHERE "slug" = 'same-2'`);
            await waiting('advisory', 1);
            await gate.rollbackTransaction();

            await expect(create).resolves.toMatchObject({ slug: 'same-3' });
            await deleted;
            await deleter.commitTransaction();
          } finally {
            for (const runner of [gate, deleter]) {
              if (runner.isTransactionActive) await runner.rollbackTransaction();
              await runner.release();
            }
          }
          await expect(makeSlugs(1)).resolves.toEqual(['same-2']);
        },
      );

      it("a delete takes its base's advisory lock before any counter's row: the slug trigger fires first", async () => {
        // Row-level AFTER DELETE triggers (tgtype: row 1, before 2, delete 8), in the order PostgreSQL fires them. The
        // first create of a base takes that lock, then the counters' rows: the other order could deadlock with it.
        const triggers = await dataSource.query<{ name: string }[]>(
          `SELECT "tgname" AS "name" FROM pg_trigger WHERE "tgrelid" = '"blogs"'::regclass AND NOT "tgisinternal"
            AND "tgtype" & 11 = 9 ORDER BY "tgname" COLLATE "C"`,
        );

        expect(triggers.map(({ name }) => name)).toEqual([
          'blogs_1_slug_freed',
          'blogs_count_authors_deleted',
          'blogs_count_deleted',
          'blogs_count_tags_deleted',
          'blogs_index_tags_deleted',
          'blogs_record_event',
          'sitemap_blocks_deleted',
        ]);
      });

      it('a create passes over each held suffix once: after 2,000 blogs of its base, the next looks at one slug', async () => {
        const runner = db.moduleRef.get(StatementRunner);
        /** Index scans of the slug tables by a create of `same` after one other, in a transaction rolled back. */
        const slugsLookedAt = async (): Promise<number> => {
          const statements = jest.spyOn(runner, 'onPrimary');
          let create: Parameters<StatementRunner['onPrimary']>;
          try {
            await make();
            create = statements.mock.calls[0];
          } finally {
            statements.mockRestore();
          }
          const session = dataSource.createQueryRunner();
          try {
            // The session's counts not yet reported count too: the difference is the create's.
            const scans = async () => {
              const [row] = (await session.query(
                `SELECT sum("idx_scan")::int AS "scans" FROM pg_stat_xact_user_tables
                  WHERE "relname" IN ('blogs', 'blog_slugs')`,
              )) as { scans: number }[];
              return row.scans;
            };
            await session.startTransaction();
            const before = await scans();
            await session.query(create[0].text, create[1]);
            return (await scans()) - before;
          } finally {
            if (session.isTransactionActive) await session.rollbackTransaction();
            await session.release();
          }
        };
        const seed = (count: number) =>
          bulkSeed(
            dataSource,
            count,
            `INSERT INTO "blogs" ("title", "content", "author", "owner_sub", "published_at", "slug")
             SELECT 't', 'c', 'a', 'alice', now(), CASE WHEN g = 1 THEN 'same' ELSE 'same-' || g END
             FROM generate_series($1::int, $2::int) g`,
          );

        await seed(20);
        const few = await slugsLookedAt();
        await dataSource.query('TRUNCATE "blogs" CASCADE');
        await seed(2_000);
        const many = await slugsLookedAt();

        // The base (a blog's: one probe), then its next suffix (free: one probe of each slug table, and once more when
        // reserved), and the first revision's foreign-key check of its blog (one probe of `blogs`).
        expect(few).toBe(6);
        expect(many).toBe(few);
      });
    });

    it("an explicit slug: another blog's current one is refused, an earlier one is taken over", async () => {
      await expect(repository.insert(withSlug(2, 'title-1', true))).rejects.toBeInstanceOf(SlugTakenError);
      await repository.update(created.id, { ...changes({}), slug: 'moved' }, by('alice'));
      await expect(earlierSlugs()).resolves.toEqual({ 'title-1': created.id });

      const taker = await repository.insert(withSlug(2, 'title-1', true));

      expect(taker.slug).toBe('title-1');
      await expect(earlierSlugs()).resolves.toEqual({});
      await expect(repository.findBySlug('title-1')).resolves.toMatchObject({ id: taker.id });
    });

    it('a changed slug keeps leading to the blog; returning to it, taking it, or deleting the blog ends that', async () => {
      await repository.update(created.id, { ...changes({}), slug: 'second' }, by('alice'));
      await repository.update(created.id, { ...changes({}), slug: 'third' }, by('alice'));
      await expect(earlierSlugs()).resolves.toEqual({ 'title-1': created.id, second: created.id });
      await expect(repository.findBySlug('second')).resolves.toMatchObject({ id: created.id, slug: 'third' });

      await repository.update(created.id, { ...changes({}), slug: 'second' }, by('alice'));
      await expect(earlierSlugs()).resolves.toEqual({ 'title-1': created.id, third: created.id });

      const other = await repository.insert(newBlog(2));
      await expect(repository.update(other.id, { ...changes({}), slug: 'second' }, by('alice'))).rejects.toBeInstanceOf(
        SlugTakenError,
      );
      await repository.update(other.id, { ...changes({}), slug: 'third' }, by('alice'));
      await expect(earlierSlugs()).resolves.toEqual({ 'title-1': created.id, 'title-2': other.id });

      await repository.delete(created.id, by('alice'));
      await expect(earlierSlugs()).resolves.toEqual({ 'title-2': other.id });
      await expect(repository.findBySlug('title-1')).resolves.toBeNull();
    });

    it('a writer that knows no slugs stores a blog published when created, with the slug blog-<id>', async () => {
      const [row] = await dataSource.query<{ id: number; slug: string; same: boolean }[]>(
        `INSERT INTO "blogs" ("title", "content", "author", "owner_sub") VALUES ('t', 'c', 'a', 'x')
         RETURNING "id", "slug", "published_at" = "created_at" AS "same"`,
      );
      expect(row).toEqual({ id: row.id, slug: `blog-${row.id}`, same: true });
    });

    it('the counter counts blogs that are not drafts, as they move between draft and published', async () => {
      const draft = await repository.insert(publishedAt(2, null));
      await repository.insert(publishedAt(3, new Date(NOW.getTime() + HOUR)));
      await expect(counts()).resolves.toEqual({ rows: 3, counter: 2 });

      const publish = { ...changes({}), publication: { change: { kind: 'now-unless-live' as const } } };
      await repository.update(draft.id, publish, by('alice'));
      await expect(counts()).resolves.toEqual({ rows: 3, counter: 3 });
      await repository.update(draft.id, { ...changes({}), publication: { change: { kind: 'draft' } } }, by('alice'));
      await expect(counts()).resolves.toEqual({ rows: 3, counter: 2 });
      await repository.delete(draft.id, by('alice'));
      await expect(counts()).resolves.toEqual({ rows: 2, counter: 2 });
    });

    it('findPage shows live blogs only, their total less the scheduled and drafts', async () => {
      const before = new Date(NOW.getTime() - HOUR);
      const live = await repository.insert(publishedAt(2, before));
      await repository.insert(publishedAt(3, null));
      await repository.insert(publishedAt(4, new Date(NOW.getTime() + HOUR)));

      const page = await repository.findPage(10, 0, NOW);

      expect(page.total).toBe(2);
      expect(page.items.map((blog) => blog.id)).toEqual([live.id, created.id]);
      // The scheduled blog is live from its instant on, with no write.
      await expect(repository.findPage(10, 0, new Date(NOW.getTime() + 2 * HOUR))).resolves.toMatchObject({ total: 3 });
    });

    describe("one tag's first page, whose rows read are written into the statement", () => {
      const TAGGED = 23;
      const tagged = (n: number, at: Date | null): NewBlog => ({
        ...publishedAt(n, at),
        tags: { slugs: ['go'], names: ['Go'] },
      });
      /** A first page of the tag `go`, newest first, just after the blogs were published. */
      const TAG_PAGE = {
        filters: { tag: ['go'] },
        sort: '-createdAt',
        limit: 10,
        offset: 0,
        withContent: false,
        status: 'published',
        now: new Date(NOW.getTime() + 1),
      } as const satisfies BlogListQuery;
      /** The live blogs with the tag, newest first. */
      let newest: number[];

      beforeEach(async () => {
        const ids: number[] = [];
        for (let n = 2; n < 2 + TAGGED; n += 1) ids.push((await repository.insert(tagged(n, NOW))).id);
        await repository.insert(tagged(100, null));
        await repository.insert(tagged(101, new Date(NOW.getTime() + HOUR)));
        newest = ids.reverse();
      });

      it.each([1, 10, 11, 20, 21, 22, 23, 50, 100])(
        'limit %i: the newest live blogs of the tag, the exact total, and whether more follow',
        async (limit) => {
          const page = await repository.findList({ ...TAG_PAGE, limit });

          expect(page.items.map((blog) => blog.id)).toEqual(newest.slice(0, limit));
          expect(page.total).toBe(TAGGED);
          expect(page.more).toBe(limit < TAGGED);
        },
      );
    });

    const LIVE = new Date(NOW.getTime() - HOUR);
    const LATER = new Date(NOW.getTime() + HOUR);

    it.each<[string, PublishedAtChange, Date | null, Date | null]>([
      ['keeps the instant of a live blog', { kind: 'now-unless-live' }, LIVE, LIVE],
      ['publishes a scheduled blog now', { kind: 'now-unless-live' }, LATER, NOW],
      ['publishes a draft now', { kind: 'now-unless-live' }, null, NOW],
      ['sets an instant', { kind: 'at', instant: LATER }, null, LATER],
      ['makes a draft', { kind: 'draft' }, LIVE, null],
      ['keeps', { kind: 'keep' }, LATER, LATER],
    ])('update %s', async (_name, change, stored, expected) => {
      const blog = await repository.insert(publishedAt(2, stored));

      const updated = await repository.update(
        blog.id,
        { ...changes({}), publication: { change } },
        { ...by('alice'), now: NOW },
      );

      expect(updated?.publishedAt).toEqual(expected);
    });

    it.each([
      ['scheduled', 'scheduled', new Date(NOW.getTime() + HOUR), true],
      ['scheduled', 'scheduled', new Date(NOW.getTime() - HOUR), false],
      ['not-draft', 'not-draft', new Date(NOW.getTime() - HOUR), true],
      ['not-draft', 'not-draft', null, false],
    ] as const)(
      'update requiring %s of a blog published at %s changes it: %s',
      async (_name, requirement, stored, changed) => {
        const blog = await repository.insert(publishedAt(2, stored));
        const publication = { change: { kind: 'keep' as const }, requirement };

        const updated = await repository.update(
          blog.id,
          { ...changes({ title: 'T' }), publication },
          { ...by('alice'), now: NOW },
        );

        expect(updated !== null).toBe(changed);
      },
    );

    it('If-Match of a scheduled blog holds while it is scheduled, and names another state once it is live', async () => {
      const blog = await repository.insert(publishedAt(2, new Date(NOW.getTime() + HOUR)));
      const scheduledTag = { match: [`${blog.version}-scheduled`] };

      await expect(
        repository.update(blog.id, changes({ title: 'T' }), {
          ...by('alice', scheduledTag),
          now: new Date(NOW.getTime() + 2 * HOUR),
        }),
      ).resolves.toBeNull();
      await expect(
        repository.update(blog.id, changes({ title: 'T' }), { ...by('alice', scheduledTag), now: NOW }),
      ).resolves.toMatchObject({ version: 2 });
    });
  });
});

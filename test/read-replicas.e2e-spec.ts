import { setTimeout as sleep } from 'node:timers/promises';
import type { Response } from 'supertest';
import { BLOGS, BlogBody, BlogListBody, bearer, blogInput, createBlog } from './support/blog-api';
import { ReplicatedCluster, replicatedClusterUnavailableReason, StreamingReplica } from './support/replicated-postgres';
import { createTestApp, TestApp } from './support/test-app';
import type { TestDatabase } from './support/test-database';
import { patience } from './support/patience';

// Read replicas (DATABASE_READ_URLS) on real engines: a throwaway primary and a streaming replica of its own
// (pg_basebackup -R), asynchronous unless a test makes it synchronous. A replica whose replay is paused still shows
// what the primary has since deleted, which tells which server answered a read.

// Clusters, base backups and a 3 s load run: minutes on a busy machine.
jest.setTimeout(patience(120_000));

/** DATABASE_READ_MAX_LAG_MS of the apps here: wide enough for a few reads right after replay stops. */
const LAG_MS = 2_000;
/** How long a poll waits for what the lag checks (every ≤ 1 s) should show within a few rounds. */
const SETTLE_MS = LAG_MS + 10_000;

const unavailable = replicatedClusterUnavailableReason();
if (unavailable !== undefined) process.stderr.write(`SKIPPING the read-replica tests: ${unavailable}\n`);

/** A replica's entry in `/health/ready`. */
interface ReplicaHealth {
  status: 'up' | 'down';
  lagMs: number | null;
  serving: boolean;
}

/** Calls `read` every 50 ms until `done` holds of its value or `ms` passed; returns the last value, for the caller to assert. */
async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = SETTLE_MS): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(50);
  }
}

/** The name of the database an app's DATABASE_URL names. */
const databaseOf = (t: TestApp): string => new URL(t.database.env.DATABASE_URL).pathname.slice(1);

(unavailable === undefined ? describe : describe.skip)(
  `read replicas (DATABASE_READ_URLS, streaming replication)${unavailable === undefined ? '' : ` — SKIPPED: ${unavailable}`}`,
  () => {
    let cluster: ReplicatedCluster;
    let replica: StreamingReplica;

    beforeAll(async () => {
      cluster = await ReplicatedCluster.create({ replicas: 1 });
      replica = cluster.replicas[0];
    });

    afterAll(async () => {
      await cluster?.destroy();
    });

    /** An app on `database` (a fresh one by default) reading from the replica, lag bound `maxLagMs`. */
    async function startApp(maxLagMs = LAG_MS, database?: TestDatabase): Promise<TestApp> {
      return createTestApp(
        { DATABASE_READ_MAX_LAG_MS: String(maxLagMs), RATE_LIMIT_ENABLED: 'false', REDIS_URL: undefined },
        database ?? (await cluster.testDatabase()),
      );
    }

    /** `GET /health/ready`: its status, and the replica's entry. */
    async function health(t: TestApp): Promise<{ status: number; replica: ReplicaHealth | undefined }> {
      const res = await t.http.get('/health/ready');
      const details = (res.body as { details?: Record<string, ReplicaHealth> }).details;
      return { status: res.status, replica: details?.database_replica_1 };
    }

    /** Waits until the app says it reads from the replica (or gives up), then expects it to say so. */
    async function expectServing(t: TestApp): Promise<void> {
      const answer = await poll(
        () => health(t),
        ({ replica }) => replica?.serving === true,
      );
      expect(answer).toEqual({ status: 200, replica: { status: 'up', lagMs: expect.any(Number), serving: true } });
    }

    /**
     * Proves reads go to the replica: a blog the replica has applied, replay paused, then deleted on the primary
     * straight away is still read (200) from the app. Leaves replay paused (the caller resumes) and returns the blog.
     */
    async function expectReadFromReplica(t: TestApp): Promise<BlogBody> {
      const blog: BlogBody = (await createBlog(t, 'alice', { title: 'only on the replica' })).body;
      await replica.waitForReplay();
      await expectServing(t);
      await replica.pauseReplay();
      await cluster.primary.query(`DELETE FROM blogs WHERE id = ${blog.id}`, databaseOf(t));

      const res = await t.http.get(`${BLOGS}/${blog.id}`);

      expect({ status: res.status, title: (res.body as BlogBody).title }).toEqual({ status: 200, title: blog.title });
      return blog;
    }

    /** The ids of a list page. */
    const idsOf = (res: Response): number[] => ((res.body as BlogListBody).data ?? []).map((blog) => blog.id);

    describe('reads are served by the replica while its lag is within DATABASE_READ_MAX_LAG_MS, else by the primary', () => {
      let t: TestApp;

      beforeAll(async () => {
        t = await startApp();
      });

      afterAll(async () => {
        await replica.resumeReplay().catch(() => undefined);
        await t?.close();
      });

      it('readiness lists the primary and the replica', async () => {
        await expectServing(t);
        const res = await t.http.get('/health/ready');

        expect({ status: res.status, details: Object.keys(res.body.details) }).toEqual({
          status: 200,
          details: ['database', 'database_replica_1'],
        });
        expect(res.body.details.database).toMatchObject({ status: 'up' });
      });

      it('a blog deleted on the primary but not yet on the paused replica: read-one and every list variant still show it; past the bound, the primary answers 404; once replay resumes, the replica serves again', async () => {
        const blog = await expectReadFromReplica(t);
        const deletedAt = Date.now();
        const lists = ['', '?limit=5', '?sort=title', '?author=Alice', '?q=replica', '?fields=id,title'];
        const listed: Record<string, boolean> = {};
        for (const query of lists) listed[query] = idsOf(await t.http.get(`${BLOGS}${query}`)).includes(blog.id);

        expect(listed).toEqual(Object.fromEntries(lists.map((query) => [query, true])));

        const gone = await poll(
          () => t.http.get(`${BLOGS}/${blog.id}`),
          (res) => res.status === 404,
        );
        const after = Date.now() - deletedAt;
        expect(gone.status).toBe(404);
        // The bound is the subject: the primary took over after it, within a few lag checks (≤ 1 s each) more.
        expect(after).toBeLessThan(LAG_MS + 5_000);
        expect(idsOf(await t.http.get(`${BLOGS}?limit=5`))).not.toContain(blog.id);
        const lagging = await health(t);
        expect(lagging).toEqual({ status: 200, replica: { status: 'up', lagMs: expect.any(Number), serving: false } });
        expect(lagging.replica?.lagMs).toBeGreaterThan(LAG_MS);

        await replica.resumeReplay();
        await expectServing(t);
        await expectReadFromReplica(t);
        await replica.resumeReplay();
      });
    });

    describe('writes, and the re-read that tells 404, 403 and 412 apart, go to the primary (replay paused, bound 1 h)', () => {
      let t: TestApp;
      const auth = (sub = 'alice'): string => bearer(t.token(sub));

      beforeAll(async () => {
        // The bound keeps the paused replica serving reads: a write or re-read sent to it would show.
        t = await startApp(3_600_000);
        await expectServing(t);
        await replica.pauseReplay();
      });

      afterAll(async () => {
        await replica.resumeReplay().catch(() => undefined);
        await t?.close();
      });

      it('POST 201, then PUT, PATCH with its ETag 200 and DELETE 204 (a hot standby refuses writes), while reads still come from the replica (404)', async () => {
        const created = await t.http
          .post(BLOGS)
          .set('Authorization', auth())
          .send(blogInput({ title: 'v1' }));
        const { id } = created.body as BlogBody;
        const read = await t.http.get(`${BLOGS}/${id}`);
        const put = await t.http
          .put(`${BLOGS}/${id}`)
          .set({ Authorization: auth(), 'If-Match': String(created.headers.etag) })
          .send(blogInput({ title: 'v2' }));
        const patch = await t.http
          .patch(`${BLOGS}/${id}`)
          .set({
            Authorization: auth(),
            'If-Match': String(put.headers.etag),
            'Content-Type': 'application/merge-patch+json',
          })
          .send(JSON.stringify({ title: 'v3' }));
        const deleted = await t.http
          .delete(`${BLOGS}/${id}`)
          .set({ Authorization: auth(), 'If-Match': String(patch.headers.etag) });

        expect([created.status, read.status, put.status, patch.status, deleted.status]).toEqual([
          201, 404, 200, 200, 204,
        ]);
        expect([put.headers.etag, patch.headers.etag]).toEqual([`"${id}-2"`, `"${id}-3"`]);
        await expect(cluster.primary.query(`SELECT id FROM blogs WHERE id = ${id}`, databaseOf(t))).resolves.toEqual(
          [],
        );
        expect((await health(t)).replica).toMatchObject({ status: 'up', serving: true });
      });

      it.each([
        [
          'PUT with a stale If-Match',
          412,
          (id: number) =>
            t.http
              .put(`${BLOGS}/${id}`)
              .set({ Authorization: auth(), 'If-Match': `"${id}-9"` })
              .send(blogInput()),
        ],
        [
          'PUT by another user',
          403,
          (id: number) => t.http.put(`${BLOGS}/${id}`).set('Authorization', auth('bob')).send(blogInput()),
        ],
        [
          'PATCH with a stale If-Match',
          412,
          (id: number) =>
            t.http
              .patch(`${BLOGS}/${id}`)
              .set({ Authorization: auth(), 'If-Match': `"${id}-9"`, 'Content-Type': 'application/merge-patch+json' })
              .send(JSON.stringify({ title: 'x' })),
        ],
        [
          'DELETE by another user',
          403,
          (id: number) => t.http.delete(`${BLOGS}/${id}`).set('Authorization', auth('bob')),
        ],
        [
          'DELETE with a stale If-Match',
          412,
          (id: number) => t.http.delete(`${BLOGS}/${id}`).set({ Authorization: auth(), 'If-Match': `"${id}-9"` }),
        ],
      ])('%s on a blog only the primary has → %d (the replica would say 404)', async (_name, status, send) => {
        const created = await t.http
          .post(BLOGS)
          .set('Authorization', auth())
          .send(blogInput({ title: 'kept' }));
        const { id } = created.body as BlogBody;

        const res = await send(id);

        expect({ created: created.status, refused: res.status }).toEqual({ created: 201, refused: status });
        await expect(cluster.primary.query(`SELECT title FROM blogs WHERE id = ${id}`, databaseOf(t))).resolves.toEqual(
          [{ title: 'kept' }],
        );
      });
    });

    describe('a replica killed under load', () => {
      let t: TestApp;

      beforeAll(async () => {
        t = await startApp();
      });

      afterAll(async () => {
        await replica.start().catch(() => undefined);
        await replica.resumeReplay().catch(() => undefined);
        await t?.close();
      });

      it('10 clients reading for 3 s, the replica stopped (immediate) after 1 s: no 5xx; readiness says it is down; started again, it serves again', async () => {
        const blogs: BlogBody[] = [];
        for (let i = 0; i < 5; i++) blogs.push((await createBlog(t, 'alice', { title: `load ${i}` })).body);
        await replica.waitForReplay();
        await expectServing(t);

        const statuses = new Map<number, number>();
        let afterKill = 0;
        let killed = false;
        const end = Date.now() + 3_000;
        const client = async (n: number): Promise<void> => {
          for (let i = n; Date.now() < end; i++) {
            const path = i % 2 === 0 ? `${BLOGS}/${blogs[i % blogs.length].id}` : `${BLOGS}?limit=5`;
            const { status } = await t.http.get(path);
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            if (killed) afterKill++;
          }
        };
        const kill = sleep(1_000).then(async () => {
          await replica.stop('immediate');
          killed = true;
        });
        await Promise.all([kill, ...Array.from({ length: 10 }, (_, n) => client(n))]);

        const counts = Object.fromEntries(statuses);
        const errors = [...statuses].filter(([status]) => status >= 500).reduce((sum, [, n]) => sum + n, 0);
        process.stderr.write(
          `replica killed under load: answers by status ${JSON.stringify(counts)}, 5xx: ${errors}\n`,
        );
        expect(errors).toBe(0);
        expect(Object.keys(counts)).toEqual(['200']);
        expect(afterKill).toBeGreaterThan(0);

        const down = await poll(
          () => health(t),
          ({ replica: entry }) => entry?.status === 'down',
        );
        expect(down).toEqual({ status: 200, replica: { status: 'down', lagMs: null, serving: false } });

        await replica.start();
        await expectServing(t);
        await expectReadFromReplica(t);
        await replica.resumeReplay();
      });
    });

    describe('a replica down at start-up', () => {
      let t: TestApp;

      beforeAll(async () => {
        const database = await cluster.testDatabase();
        await replica.stop('fast');
        t = await startApp(LAG_MS, database);
      });

      afterAll(async () => {
        await replica.start().catch(() => undefined);
        await replica.resumeReplay().catch(() => undefined);
        await t?.close();
      });

      it('the app starts and reads from the primary, readiness says the replica is down; once it is started, it serves', async () => {
        const blog: BlogBody = (await createBlog(t, 'alice')).body;
        const read = await t.http.get(`${BLOGS}/${blog.id}`);
        const list = await t.http.get(BLOGS);

        expect({ read: read.status, listed: idsOf(list) }).toEqual({ read: 200, listed: [blog.id] });
        expect(await health(t)).toEqual({ status: 200, replica: { status: 'down', lagMs: null, serving: false } });

        await replica.start();
        await expectServing(t);
        await expectReadFromReplica(t);
        await replica.resumeReplay();
      });
    });

    describe('read-your-writes across pods with synchronous replication (synchronous_commit = remote_apply)', () => {
      let database: TestDatabase;
      const pods: TestApp[] = [];

      beforeAll(async () => {
        await cluster.setSynchronous(true);
        database = await cluster.testDatabase();
        for (let i = 0; i < 2; i++) pods.push(await startApp(LAG_MS, database));
      });

      afterAll(async () => {
        for (const pod of pods.splice(0)) await pod.close({ keepDatabase: true });
        await database?.drop();
        await cluster.setSynchronous(false);
      });

      it('30 rounds: POST on pod A, GET on pod B → 200 with its ETag; PUT on B, GET on A → the new ETag', async () => {
        const [a, b] = pods;
        for (const pod of pods) await expectServing(pod);
        const rounds: unknown[] = [];
        for (let i = 0; i < 30; i++) {
          const created = await a.http
            .post(BLOGS)
            .set('Authorization', bearer(a.token('alice')))
            .send(blogInput());
          const { id } = created.body as BlogBody;
          const onB = await b.http.get(`${BLOGS}/${id}`);
          const put = await b.http
            .put(`${BLOGS}/${id}`)
            .set({ Authorization: bearer(b.token('alice')), 'If-Match': String(onB.headers.etag) })
            .send(blogInput({ title: `round ${i}` }));
          const onA = await a.http.get(`${BLOGS}/${id}`);
          rounds.push({
            created: [created.status, created.headers.etag],
            onB: [onB.status, onB.headers.etag],
            put: [put.status, put.headers.etag],
            onA: [onA.status, onA.headers.etag, (onA.body as BlogBody).title],
          });
        }

        expect(rounds).toEqual(
          rounds.map((round, i) => {
            const { created, put } = round as Record<string, [number, string]>;
            return {
              created: [201, expect.stringMatching(/^"\d+-1"$/)],
              onB: [200, created[1]],
              put: [200, expect.stringMatching(/^"\d+-2"$/)],
              onA: [200, put[1], `round ${i}`],
            };
          }),
        );
        for (const pod of pods) expect((await health(pod)).replica).toMatchObject({ status: 'up', serving: true });
      });
    });
  },
);

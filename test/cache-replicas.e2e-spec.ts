import { setTimeout as sleep } from 'node:timers/promises';
import { BLOGS, BlogListBody, bearer, createBlog } from './support/blog-api';
import { allPurged } from './support/cache-purges';
import { ReplicatedCluster, replicatedClusterUnavailableReason, StreamingReplica } from './support/replicated-postgres';
import { createTestApp, TestApp } from './support/test-app';
import { freePort, startVarnish, varnishUnavailableReason, VarnishServer } from './support/varnish-server';
import { eventually } from './support/webhook-receiver';

// A real Varnish (deploy/varnish/default.vcl) in front of a service reading from a streaming replica that lags: a read
// that the replica answers with what a write has since changed, after that write's purge, is served to its caller but
// never stored (the service's `Read-Lag-Bound` moves the fetch's start back by the replicas' lag bound).

// A cluster, its base backup and Varnish: minutes on a busy machine.
jest.setTimeout(180_000);

/**
 * DATABASE_READ_MAX_LAG_MS: the paused replica keeps serving reads this long after the write. Answers fetched within
 * it plus two lag checks (2 s) of a purge are not stored.
 */
const LAG_MS = 6_000;
const LIST = `${BLOGS}?limit=100`;

const unavailable = replicatedClusterUnavailableReason() ?? varnishUnavailableReason();
if (unavailable !== undefined) process.stderr.write(`SKIPPING the cache-with-replicas tests: ${unavailable}\n`);

(unavailable === undefined ? describe : describe.skip)(
  `behind Varnish, reading from a replica${unavailable === undefined ? '' : ` — SKIPPED: ${unavailable}`}`,
  () => {
    let cluster: ReplicatedCluster;
    let replica: StreamingReplica;
    let varnish: VarnishServer;
    let t: TestApp;

    beforeAll(async () => {
      cluster = await ReplicatedCluster.create({ replicas: 1 });
      replica = cluster.replicas[0];
      const varnishPort = await freePort();
      t = await createTestApp(
        {
          DATABASE_READ_MAX_LAG_MS: String(LAG_MS),
          JOBS_ENABLED: 'true',
          RATE_LIMIT_ENABLED: 'false',
          REDIS_URL: undefined,
          CACHE_PURGE_URLS: `http://127.0.0.1:${varnishPort}`,
        },
        await cluster.testDatabase(),
      );
      varnish = await startVarnish({ backendPort: await t.listen(), port: varnishPort });
    }, 180_000);

    afterAll(async () => {
      await replica?.resumeReplay().catch(() => undefined);
      await varnish?.close();
      await t?.close();
      await cluster?.destroy();
    });

    async function read(path: string): Promise<{ cache: string | null; ids: number[]; lagBound: string | null }> {
      const response = await fetch(`${varnish.url}${path}`);
      const body = (await response.json()) as BlogListBody;
      return {
        cache: response.headers.get('x-cache'),
        ids: (body.data ?? []).map((blog) => blog.id),
        lagBound: response.headers.get('read-lag-bound'),
      };
    }

    it('a list the paused replica answers after an unpublish and its purge is never stored; once replayed, it is', async () => {
      const { id } = (await createBlog(t, 'alice', { title: 'on the replica' })).body;
      await allPurged(t);
      await replica.waitForReplay();
      // Stored once the lag bound has passed since the create's purge.
      await eventually(
        async () => {
          const { cache, ids } = await read(LIST);
          return cache === 'HIT' && ids.includes(id);
        },
        'the list with the blog to be kept',
        30_000,
      );
      await replica.pauseReplay();

      await t.http
        .patch(`${BLOGS}/${id}`)
        .set('Authorization', bearer(t.token('alice')))
        .send({ status: 'draft' })
        .expect(200);
      await allPurged(t);
      const stale = [await read(LIST), await read(LIST)];

      // The replica answered both (the blog is still listed), each fetched: the first was not stored.
      expect(stale).toEqual([
        { cache: 'MISS', ids: expect.arrayContaining([id]), lagBound: null },
        { cache: 'MISS', ids: expect.arrayContaining([id]), lagBound: null },
      ]);
      await replica.resumeReplay();
      await replica.waitForReplay();
      expect((await read(LIST)).ids).not.toContain(id);
      // Once the lag bound has passed since the purge, answers are stored again.
      await sleep(LAG_MS + 2_000);
      await read(LIST);
      expect(await read(LIST)).toEqual({ cache: 'HIT', ids: expect.not.arrayContaining([id]), lagBound: null });
    });
  },
);

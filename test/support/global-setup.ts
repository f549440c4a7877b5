import { pgBouncerUnavailableReason, ThrowawayPgBouncer } from './pgbouncer';
import { ReplicatedCluster, replicatedClusterUnavailableReason } from './replicated-postgres';
import { adminQuery, createEmbeddedTemplates, createServerTemplate, E2E_ENV } from './test-database';

/** The PgBouncers of a `TEST_VIA_PGBOUNCER=1` run, for the global teardown (same process). */
export const RUN_PGBOUNCER = Symbol.for('blog-service e2e PgBouncer');
/** The primary and replica of a `TEST_WITH_REPLICA=1` run, for the global teardown (same process). */
export const RUN_REPLICATED_CLUSTER = Symbol.for('blog-service e2e replicated cluster');

// Runs once before the e2e workers start (they inherit this process's environment): with
// DATABASE_URL set, each test file gets a fresh database on that server, named with this run's
// prefix and made from one migrated here; without it, each file gets a fresh embedded database, a copy of one
// migrated here (or, empty, of one initialised here). With
// TEST_VIA_PGBOUNCER=1 as well, a PgBouncer in transaction pooling mode is started in front of the server and the
// apps go through it.
// With TEST_WITH_REPLICA=1 the run's server is a throwaway primary of its own instead (DATABASE_URL is not used)
// with one streaming replica the apps read from (DATABASE_READ_URLS); replication is synchronous with
// synchronous_commit = remote_apply, the set-up that gives read-your-writes, which the specs rely on (they read
// right after they write). Both variables together put a PgBouncer in front of that primary and one in front of the
// replica, as a deployment with both has them: the apps write through the one and read through the other.
export default async function globalSetup(): Promise<void> {
  const viaPgBouncer = process.env.TEST_VIA_PGBOUNCER === '1';
  const withReplica = process.env.TEST_WITH_REPLICA === '1';
  delete process.env[E2E_ENV.readServerUrls];
  let serverUrl = process.env.DATABASE_URL;
  if (withReplica) {
    const unavailable = replicatedClusterUnavailableReason();
    if (unavailable !== undefined) throw new Error(`TEST_WITH_REPLICA=1, but ${unavailable}`);
    const cluster = await ReplicatedCluster.create({ replicas: 1, synchronous: true });
    (globalThis as Record<symbol, unknown>)[RUN_REPLICATED_CLUSTER] = cluster;
    serverUrl = cluster.primary.url();
    process.env[E2E_ENV.readServerUrls] = cluster.replicas.map((replica) => replica.url()).join(',');
  }
  if (!serverUrl) {
    if (viaPgBouncer)
      throw new Error('TEST_VIA_PGBOUNCER=1 needs DATABASE_URL: the PostgreSQL server to put PgBouncer in front of');
    delete process.env[E2E_ENV.serverUrl];
    const templates = await createEmbeddedTemplates();
    process.env[E2E_ENV.embeddedTemplate] = templates.migrated;
    process.env[E2E_ENV.embeddedEmptyTemplate] = templates.empty;
    return;
  }
  await adminQuery(serverUrl, 'SELECT 1'); // fail fast, with the driver's message, if unreachable
  process.env[E2E_ENV.serverUrl] = serverUrl;
  const prefix = `blog_e2e_${Date.now()}_${process.pid}`;
  process.env[E2E_ENV.prefix] = prefix;
  process.env[E2E_ENV.serverTemplate] = await createServerTemplate(serverUrl, `${prefix}_template`);
  delete process.env[E2E_ENV.pgBouncerUrl];
  if (viaPgBouncer) {
    const unavailable = pgBouncerUnavailableReason();
    if (unavailable !== undefined) throw new Error(`TEST_VIA_PGBOUNCER=1, but ${unavailable}`);
    const bouncers: ThrowawayPgBouncer[] = [];
    (globalThis as Record<symbol, unknown>)[RUN_PGBOUNCER] = bouncers;
    bouncers.push(await ThrowawayPgBouncer.start(serverUrl));
    process.env[E2E_ENV.pgBouncerUrl] = bouncers[0].url('postgres');
    const readServerUrls = process.env[E2E_ENV.readServerUrls]?.split(',') ?? [];
    for (const url of readServerUrls) bouncers.push(await ThrowawayPgBouncer.start(url));
    if (readServerUrls.length > 0)
      process.env[E2E_ENV.readServerUrls] = bouncers
        .slice(1)
        .map((bouncer) => bouncer.url('postgres'))
        .join(',');
  }
}

// `npm run bench [-- options]`: builds the service, starts it in production mode and the baseline
// (bench/baseline/server.mjs) against one PostgreSQL database, seeds it, runs every scenario with
// autocannon (a separate process) against both, and prints req/s, p50/p99, non-2xx, the service's
// peak RSS and the ratios service / baseline. Writes bench/results/<timestamp>.json.
//
// Options:
//   --rows N[,M…]      blogs to seed before the scenarios (default 10000); several sizes run the
//                      scenarios at each size in turn and print how the service's p50 grows
//   --duration S       seconds per scenario and server (default 10)
//   --connections C    concurrent connections (default 50)
//   --rounds R         runs per scenario and server, alternating baseline and service(s), the
//                      services' order rotating by one each round; the table shows medians (default 1)
//   --scenarios a,b    subset of: read-one,list-first,list-deep,list-author,search-rare,search-common,
//                      cursor-deep,list-tag,tags,read-slug,list-large,list-large-compressed,create,
//                      create-numbered,create-same-title,create-uncounted,update,patch,delete,mixed,
//                      comments-first,comments-cursor,comment-create,revisions-first,feed-atom,sitemap-file
//                      (list-large: the 100 oldest blogs, ~10 kB of content each, without and with
//                      Accept-Encoding: gzip, br; the table shows bytes per response)
//                      (create-uncounted: create with the counter trigger off, to price the counter;
//                      create-numbered: titles "Weekly notes <run> <n>", one base per run and a suffix each;
//                      create-same-title: every create titled "Weekly update", its slug the next free suffix)
//                      (list-author: one author's ~1,000 blogs at 1M; search-rare / search-common: a word in
//                      1 of 10,000 / 1 of 10 blogs; cursor-deep: page 1,000 of a cursor walk; delete: blogs
//                      seeded for each run, one request each)
//                      (list-tag: `?tag=<slug>&limit=10&offset=0`, the tag drawn per request as the seeding
//                      draws them, tag-k with probability ∝ 1/k (bench/tags.mjs); tags: `GET /tags?limit=10`,
//                      live counts, most blogs first; read-slug: `GET /blogs/slug/blog-<id>`, ids as read-one's)
//                      (search-storm, not run by default, meant for 1M blogs: 50 connections of search-common
//                      and at the same time read-one on 10 connections at 200 req/s; the table shows both; the
//                      searches come from as many client addresses as connections, in X-Forwarded-For)
//                      (cache-churn, only with --via-cache and by default there: see --via-cache)
//                      (comments-first: `GET /blogs/:id/comments?limit=10` of the blog with 10,000 comments, seeded
//                      in every store; comments-cursor: its page 500 of 10 by cursor; comment-create: `POST
//                      /blogs/:id/comments` on the blogs read-one reads; none in a store without comments)
//                      (revisions-first: `GET /blogs/:id/revisions?limit=10` as its owner, of the blog with 1,000
//                      revisions (1,000 PUTs' worth, REVISIONS_KEPT of them kept), seeded in every store that has them;
//                      update and patch make a revision each, and prune one once a blog has REVISIONS_KEPT)
//                      (feed-atom: `GET /feeds/blogs.atom`, the first document, 20 entries with their content;
//                      sitemap-file: `GET /sitemaps/blogs-1.xml`, the live blogs of ids 1–50,000, every seeded blog
//                      below 50,000 rows; a release without feeds skips both)
//   --comments N       also seeds N comments spread over the blogs read-one reads (default 0), at each size
//   --via-cache        also runs read-one, list-first and list-tag through a local Varnish with the shipped
//                      configuration (deploy/varnish/default.vcl) in front of `service`, which purges it
//                      (CACHE_PURGE_URLS; its writes pay that), as a server `cache` of the same rounds, once the
//                      service has purged it of the seeding and every page of those scenarios (at most 100,000
//                      blogs) was read through it. A last table gives the cache's req/s ÷ the service's
//                      (target ≥ 5×), its p99 (target ≤ 10 ms), its hit ratio (varnishstat), the CPU per request of
//                      every process but the generator straight ÷ through the cache, and how much of a core the load
//                      generator used (near 1: the generator, not the cache, is the limit). Adds cache-churn, run
//                      only through the cache: its reads (45 % read-one, 45 % the blogs written, 10 % list-first)
//                      while bench/churn.mjs PATCHes those blogs 50 times a second straight to the service and reads
//                      each written blog through the cache every 50 ms until it shows the write: the hit ratio and
//                      the staleness (a write's 2xx to the first read showing it; bound 2 s). In the JSON: each
//                      scenario's `cache` figures (cache-churn's writer's under `cache.churn`) and `cacheVerdict`
//   --cache-connections C  concurrent connections of the runs through the cache (default: --connections)
//   --smoke            quick check that the bench works (1,000 rows, 1 s, 10 connections)
//   --check            the CI guard (bench/check.mjs): a short run of bench/budget.json's scenarios (or the --scenarios
//                      of it); fails when a service ÷ baseline CPU per request passes its budget × tolerance and, run
//                      again beside the budget's release (or beside --against from the start), the service's CPU per
//                      request passes the release's × its tolerance; or when a scenario's service and database CPU ÷
//                      another's passes its budget; then the throughput half: the budget's `throughput` scenarios on 50
//                      connections beside the release (--against, or the budget's), failing when service ÷ release req/s
//                      stays below its minimum
//   --only cpu|throughput  with --check: only that half of the guard
//   --against <ref>    also runs the build of that git ref ("release <sha>", its own database migrated
//                      by its own code, its Dockerfile's NODE_OPTIONS); the table adds service ÷ release
//   --textbook         also runs the textbook Nest + TypeORM app (bench/textbook/, "textbook") on a copy of the blogs
//                      in its own table, for read-one, create, create-same-title, update and delete
//   --node-options "a;b"  runs the working tree's service once per V8 flag set (default: the
//                      Dockerfile's NODE_OPTIONS); the first one is `service`, the reference of the ratios
//   --no-build         use the existing dist/
//   --keep-db          keep the fresh database (its URL is printed)
//   --profile          run the service and the release with --cpu-prof; <server>.cpuprofile goes to bench/results/
//   --topology t,u     how the service reaches PostgreSQL, one service process each, every scenario run
//                      on all of them in turn after the baseline (default direct; direct always runs, as
//                      the reference of the ratios): direct; pgbouncer (PgBouncer in transaction mode,
//                      default_pool_size 20, in front of the same database, DATABASE_POOLER=pgbouncer);
//                      replica (a streaming replica made with pg_basebackup -R, in DATABASE_READ_URLS)
// Seeded blogs have 0–5 of the tags `tag-1` … `tag-1000` (stored first), tag-k drawn with probability
// ∝ 1/k; the large and the bench's own blogs have none.
// Database: DATABASE_URL when set (used as it is, blogs are added to it), else a fresh database on
// postgres://postgres@127.0.0.1:5432 that is dropped at the end; with the replica topology, a
// throwaway primary cluster (initdb on a free port) that every server and topology uses, since
// the machine's cluster need not allow replication connections.
// Besides the servers' CPU per request, the table and the JSON give PostgreSQL's (the primary's and
// the replica's clusters, postmaster and every backend) and PgBouncer's. On the machine's cluster the
// primary's figure also counts whatever else that cluster serves meanwhile.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import jwt from 'jsonwebtoken';
import pg from 'pg';
import { CHECK, checkBudget, checkScenarios, checkThroughput, readBudget, THROUGHPUT_CHECK } from './check.mjs';
import { dockerNodeOptions, prepareRelease } from './release.mjs';
import { TAG_CUMULATIVE, TAGS, tagSlug } from './tags.mjs';
import { mirrorBlogs, TEXTBOOK_ARGS, TEXTBOOK_SCENARIOS } from './textbook/mirror.mjs';
import { startPgBouncer, startPostgres, stopAll, treeCpuMs } from './topology.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { freePort, startVarnish } = require(join(root, 'test', 'support', 'varnish-server.js'));
const ALL_SCENARIOS = [
  'read-one',
  'list-first',
  'list-deep',
  'list-author',
  'search-rare',
  'search-common',
  'cursor-deep',
  'list-tag',
  'tags',
  'read-slug',
  'list-large',
  'list-large-compressed',
  'create',
  'create-numbered',
  'create-same-title',
  'create-uncounted',
  'update',
  'patch',
  'delete',
  'mixed',
  'comments-first',
  'comments-cursor',
  'comment-create',
  'revisions-first',
  'feed-atom',
  'sitemap-file',
  'search-storm',
  'cache-churn',
];
/** `--smoke`: a quick check that the bench works. */
const SMOKE = { rows: 1000, duration: 1, connections: 10, rounds: 1 };
/** search-storm's second load: read-one on this many connections, at this many requests per second in all. */
const STORM_READ_CONNECTIONS = 10;
/** The most matches a search counts: its `total` past them is this many (docs/api.md, "Search"). */
const SEARCH_TOTAL_CAP = 10_000;
const STORM_READ_RATE = 200;
/** `--via-cache`: the scenarios also run through the cache, and the one that runs only there. */
const CACHED = ['read-one', 'list-first', 'list-tag'];
const CACHE_ONLY = ['cache-churn'];
/** The issue's targets through the cache: req/s at least this many times the service's own, and p99 at most this. */
const CACHE_TARGETS = { ratio: 5, p99Ms: 10 };
/** cache-churn: writes per second, the interval of the reads watching each write, its bound and when to give up. */
const CHURN = { writesPerSecond: 50, pollMs: 50, boundMs: 2000, giveUpMs: 10_000 };
/** The most blogs read through the cache once before the runs, so that read-one there measures a warm cache. */
const CACHE_WARM_LIMIT = 100_000;
/** The scenarios of each list filter, which an older release without that filter skips. */
const FILTERED = {
  author: ['list-author'],
  q: ['search-rare', 'search-common', 'search-storm'],
  tag: ['list-tag'],
};
/** The scenarios of the tags (`tags`, the tags of blogs, slugs), which a release or a store without them skips. */
const TAGGED = ['list-tag', 'tags', 'read-slug'];
/** The scenarios of comments, which a release or a store without the `comments` table skips. */
const COMMENTED = ['comments-first', 'comments-cursor', 'comment-create'];
/** The scenarios of revisions, which a release or a store without the `blog_revisions` table skips. */
const REVISED = ['revisions-first'];
/** Writes of the one blog whose revisions revisions-first lists, in every store that has them. */
const REVISION_BLOG_WRITES = 1000;
/** Comments of the one blog that comments-first and comments-cursor read, in every store. */
const COMMENT_BLOG_COMMENTS = 10_000;
/** The page of 10 that comments-cursor reads by a cursor walk. */
const COMMENTS_CURSOR_PAGE = 500;
/** Blogs of ~10 kB content, the oldest of all, that the list-large scenarios page through 100 at a time. */
const LARGE_BLOGS = 100;
/** Scenarios run with the blog counter's insert trigger disabled, to show what the counter costs. */
const UNCOUNTED = new Set(['create-uncounted']);
const SEED_BATCH = 100_000;
const UPDATE_BLOGS = 100;
/** The cursor-deep scenario reads this page of a cursor walk (or the last full page of a smaller table). */
const CURSOR_DEEP_PAGE = 1000;
/** Blogs seeded for one delete run, per second of its duration: more than either server deletes. */
const DELETES_PER_SECOND = 6000;
/**
 * The delete runs' blogs are inserted and dropped this many a statement: each takes or frees a suffix of one base, and
 * in one transaction every row's trigger reads past the versions of that base's gap row that the rows before it left.
 */
const DELETABLE_CHUNK = 500;
const BENCH_SUB = 'bench';
const TOPOLOGIES = ['direct', 'pgbouncer', 'replica'];
/** PgBouncer's default, and what docs/operations.md suggests: a small multiple of the server's cores. */
const PGBOUNCER_POOL_SIZE = 20;
const JWT_SECRET = 'bench-secret-0123456789abcdefghijklmnopqrstuvwxyz';

// `--node-options --flag…`: parseArgs takes a value that starts with `-` only in the `--name=value` form.
const args = process.argv
  .slice(2)
  .map((arg, i, all) => (all[i - 1] === '--node-options' ? `--node-options=${arg}` : arg))
  .filter((arg, i, all) => !(arg === '--node-options' && all[i + 1]?.startsWith('--node-options=')));
const { values: options } = parseArgs({
  args,
  options: {
    rows: { type: 'string', default: '10000' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '1' },
    comments: { type: 'string', default: '0' },
    scenarios: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'keep-db': { type: 'boolean', default: false },
    profile: { type: 'boolean', default: false },
    topology: { type: 'string', default: 'direct' },
    against: { type: 'string' },
    textbook: { type: 'boolean', default: false },
    'node-options': { type: 'string' },
    'via-cache': { type: 'boolean', default: false },
    'cache-connections': { type: 'string' },
  },
});
const viaCache = options['via-cache'];
const smoke = options.smoke;
const budget = options.check ? readBudget() : undefined;
const quick = smoke ? SMOKE : budget ? CHECK : undefined;
const rowSteps = (quick ? String(quick.rows) : options.rows).split(',').map((text) => Number(text.replaceAll('_', '')));
const duration = quick?.duration ?? Number(options.duration);
const connections = quick?.connections ?? Number(options.connections);
const rounds = quick?.rounds ?? Number(options.rounds);
const spreadComments = quick ? 0 : Number(options.comments.replaceAll('_', ''));
if (!Number.isInteger(spreadComments) || spreadComments < 0) throw new Error('--comments takes an integer ≥ 0');
if (options.only !== undefined && (!budget || !['cpu', 'throughput'].includes(options.only)))
  throw new Error('--only takes cpu or throughput, with --check');
/** The check's scenarios: the CPU half's and the throughput half's (bench/check.mjs), those of --only's half. */
const guard = budget && checkScenarios(budget, options.scenarios?.split(','));
if (guard && options.only === 'cpu') guard.throughput = [];
if (guard && options.only === 'throughput') guard.cpu = [];
const scenarios = guard
  ? guard.cpu
  : (options.scenarios?.split(',') ??
    ALL_SCENARIOS.filter((name) => name !== 'search-storm' && (viaCache || !CACHE_ONLY.includes(name))));
for (const name of [...scenarios, ...(guard?.throughput ?? [])])
  if (!ALL_SCENARIOS.includes(name)) throw new Error(`unknown scenario ${name}`);
if (viaCache && budget) throw new Error('--via-cache is not part of the check');
for (const name of CACHE_ONLY) if (scenarios.includes(name) && !viaCache) throw new Error(`${name} needs --via-cache`);
const cacheConnections = Number(options['cache-connections'] ?? connections);
if (!Number.isInteger(cacheConnections) || cacheConnections < 1)
  throw new Error('--cache-connections takes an integer ≥ 1');
const topologies = TOPOLOGIES.filter((name) => name === 'direct' || options.topology.split(',').includes(name));
for (const name of options.topology.split(','))
  if (!TOPOLOGIES.includes(name)) throw new Error(`unknown topology ${name}`);
if (topologies.includes('replica') && process.env.DATABASE_URL) {
  throw new Error('--topology replica makes its own primary and replica: unset DATABASE_URL');
}
if (rowSteps.some((n) => !Number.isInteger(n) || n < 1) || rowSteps.some((n, i) => i > 0 && n <= rowSteps[i - 1])) {
  throw new Error('--rows takes increasing positive integers, e.g. 10000,1000000');
}

/**
 * The V8 flags the container image runs the service with (`ENV NODE_OPTIONS` in the Dockerfile),
 * so the bench measures the service as it ships; the baseline and autocannon get none.
 */
const IMAGE_NODE_OPTIONS = dockerNodeOptions(root);
if (IMAGE_NODE_OPTIONS === undefined) throw new Error('Dockerfile: no NODE_OPTIONS="…" in the runtime stage');
/** The working tree's service runs once per flag set (`--node-options "a;b"`), the first one being `service`. */
const FLAG_SETS =
  options['node-options'] === undefined
    ? [IMAGE_NODE_OPTIONS]
    : options['node-options'].split(';').map((s) => s.trim());
if (new Set(FLAG_SETS).size !== FLAG_SETS.length) throw new Error('--node-options: a flag set is listed twice');

// The children inherit this environment: a NODE_OPTIONS of the caller's shell would reach the
// baseline and autocannon too. The service gets its flags explicitly.
delete process.env.NODE_OPTIONS;

const log = (line) => process.stderr.write(`[bench] ${line}\n`);
const children = new Set();
const cleanups = [];
const token = jwt.sign({ sub: BENCH_SUB }, JWT_SECRET, { algorithm: 'HS256', expiresIn: '4h' });

async function main() {
  if (!options['no-build']) {
    log('building the service (npm run build)');
    execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' });
  }
  // Built before any database exists: it takes minutes, and fails early on a bad ref. The check's CPU half runs the
  // budget's release only for the scenarios over their limit (checkBesideRelease), unless --against names a ref; its
  // throughput half runs the release (--against's, or the budget's) in all its rounds.
  const against = options.against ?? (guard?.throughput.length > 0 ? budget.release.ref : undefined);
  const release = against && (await prepareRelease(root, against, { children, log }));
  if (release) cleanups.push(async () => release.remove());
  const primary = topologies.includes('replica') ? startPostgres(await freePort()) : undefined;
  if (primary) log(`throwaway primary cluster on :${primary.port}`);
  const databaseUrl = await prepareDatabase(primary?.url());
  // After the fresh database's DROP (on the machine's cluster), which needs that cluster running.
  cleanups.push(async () => stopAll());
  // The role's statement_timeout (set below for PgBouncer's sessions) would cut the seeding's statements.
  const store = openStore(databaseUrl, topologies.includes('pgbouncer') ? { options: '-c statement_timeout=0' } : {});
  const { db } = store;
  const database = new URL(databaseUrl).pathname.slice(1);
  // Made before seeding, so the replica streams the seeded blogs as a production one would.
  const replica = primary && startPostgres(await freePort(), primary);
  if (replica) log(`streaming replica on :${replica.port}`);
  const bouncer = topologies.includes('pgbouncer')
    ? await startPgBouncer(await freePort(), new URL(databaseUrl).port || 5432, PGBOUNCER_POOL_SIZE)
    : undefined;
  if (bouncer) {
    log(`PgBouncer on :${bouncer.port} (transaction mode, default_pool_size ${PGBOUNCER_POOL_SIZE})`);
    await applySessionSettings(databaseUrl, database);
  }
  // Whose CPU each run reads besides the server's: the clusters' postmasters with their backends.
  const primaryPid = await postmasterPid(databaseUrl);
  const meters = {
    ...(primaryPid && { primary: primaryPid }),
    ...(replica && { replica: replica.pid() }),
    ...(bouncer && { pgbouncer: bouncer.pid() }),
  };

  const env = {
    DATABASE_URL: databaseUrl,
    JWT_SECRET,
    // Rate limits would answer the load with 429s: the bench measures the request path.
    RATE_LIMIT_ENABLED: 'false',
    // The search scenarios name their clients in X-Forwarded-For (bench/load.mjs): many clients, not one.
    TRUST_PROXY: 'true',
  };
  const topologyEnv = {
    direct: {},
    pgbouncer: {
      DATABASE_URL: bouncer?.url(database),
      DATABASE_POOLER: 'pgbouncer',
      DATABASE_MIGRATION_URL: databaseUrl,
    },
    replica: { DATABASE_READ_URLS: replica?.url(database) },
  };
  // One .cpuprofile per server, named after it (`service`, `release c1c807e` → `release-c1c807e`).
  const profile = (name) =>
    options.profile
      ? [
          '--cpu-prof',
          '--cpu-prof-dir',
          join(root, 'bench', 'results'),
          '--cpu-prof-name',
          `${name.replace(/\W+/g, '-')}.cpuprofile`,
        ]
      : [];
  const services = [];
  // `--via-cache`: the cache's port is known before `service` starts, so that `service` purges it.
  const cachePort = viaCache ? await freePort() : undefined;
  // One after the other: the first migrates the fresh database, the others find it migrated.
  for (const topology of topologies) {
    for (const [i, flags] of (topology === 'direct' ? FLAG_SETS : FLAG_SETS.slice(0, 1)).entries()) {
      const name =
        topology !== 'direct' ? `service-${topology}` : i === 0 ? 'service' : `service ${flags || '(no flags)'}`;
      const serviceEnv = {
        ...env,
        ...topologyEnv[topology],
        ...(name === 'service' && cachePort && { CACHE_PURGE_URLS: `http://127.0.0.1:${cachePort}` }),
        NODE_ENV: 'production',
        NODE_OPTIONS: flags,
      };
      services.push({ ...(await startServer(name, [...profile(name), 'dist/main.js'], serviceEnv)), store, flags });
    }
  }
  if (viaCache) services.push({ ...(await startCache(services[0], cachePort)), store });
  // The release on a database of its own, which its own migrations make (an older schema, perhaps).
  if (release) {
    const releaseUrl = await prepareDatabase(primary?.url(), '_release');
    const releaseEnv = { ...env, DATABASE_URL: releaseUrl, NODE_ENV: 'production', NODE_OPTIONS: release.nodeOptions };
    const server = await startServer(release.name, [...profile(release.name), 'dist/main.js'], releaseEnv, release.dir);
    services.push({ ...server, store: openStore(releaseUrl), flags: release.nodeOptions, release: true });
  }
  if (options.textbook) {
    const server = await startServer('textbook', TEXTBOOK_ARGS, { ...env, NODE_ENV: 'production' });
    services.push({ ...server, store, textbook: true });
  }
  const baseline = { ...(await startServer('baseline', ['bench/baseline/server.mjs'], env)), store };
  const servers = [baseline, ...services];
  const stores = [...new Set(servers.map((server) => server.store))];
  // The check's CPU half runs the release beside the others only when --against names it; its throughput half runs
  // the service and the release alone.
  const cpuRelease = budget && !options.against ? undefined : release?.name;
  const measured = servers.filter((server) => !server.release || cpuRelease);
  for (const { db: pool } of stores) {
    await seedLargeBlogs(pool);
    await seedTags(pool);
  }
  for (const own of stores) own.commentBlog = await seedCommentBlog(own.db);
  for (const own of stores) own.revisionBlog = await seedRevisionBlog(own.db);
  for (const own of stores) own.updateIds = await seedOwnBlogs(own.db);

  const results = {
    startedAt: new Date().toISOString(),
    machine: machine(),
    options: {
      rowSteps,
      duration,
      connections,
      rounds,
      scenarios,
      topologies,
      nodeOptions: FLAG_SETS,
      commentBlogComments: COMMENT_BLOG_COMMENTS,
      spreadComments,
      ...(viaCache && {
        viaCache: { cacheConnections, scenarios: [...CACHED, ...CACHE_ONLY], targets: CACHE_TARGETS, churn: CHURN },
      }),
    },
    ...(release && { release: { ref: against, sha: release.sha, nodeOptions: release.nodeOptions } }),
    ...(bouncer && { pgbouncer: { poolMode: 'transaction', defaultPoolSize: PGBOUNCER_POOL_SIZE } }),
    ...(viaCache && {
      cache: { version: services.find((server) => server.cache).cache.version, config: 'deploy/varnish/default.vcl' },
    }),
    steps: [],
  };
  /**
   * Runs `count` more rounds of `scenario` on each of `who` (every server by default), after the rounds `step` already
   * holds of it, on `step.connections` for `step.duration` s a run, and sets its figures in `step` from all of them.
   */
  async function runScenario(step, scenario, count, who = servers) {
    const runs = Object.fromEntries(
      who.map((server) => [server.name, [...(step.scenarios[scenario]?.[server.name]?.rounds ?? [])]]),
    );
    const done = Math.max(...Object.values(runs).map((list) => list.length));
    const total = done + count;
    const rotated = who.filter((server) => server !== baseline);
    if (UNCOUNTED.has(scenario)) await setCounter(stores, false);
    try {
      for (let round = done + 1; round <= total; round += 1) {
        // Each round the services start at another place, so none always runs right after the same one.
        const shift = (round - 1) % rotated.length;
        const order = [...rotated.slice(shift), ...rotated.slice(0, shift)];
        for (const server of who.includes(baseline) ? [baseline, ...order] : order) {
          // The cache runs only its scenarios, and cache-churn runs only there.
          if (
            server.cache ? !CACHED.includes(scenario) && !CACHE_ONLY.includes(scenario) : CACHE_ONLY.includes(scenario)
          )
            continue;
          if (server.release && round === 1 && !(await releaseServes(server, scenario, step))) continue;
          if (server.textbook && !TEXTBOOK_SCENARIOS.includes(scenario)) continue;
          if (server.release && runs[server.name].length === 0 && round > 1) continue;
          log(
            `${step.rows.toLocaleString('en')} rows · ${scenario} · ${server.name} (${step.duration} s, ${step.connections} connections${total > 1 ? `, round ${round}/${total}` : ''})`,
          );
          const job = await prepareRun(server, scenario, step);
          if (server.textbook) await mirrorBlogs(server.store.db);
          const run = await measure(server, job, meters);
          log(
            `  ${Math.round(run.requestsPerSecond)} req/s, ${run.cpuUsPerRequest} µs CPU/request` +
              (server.cache ? `, ${Math.round(run.hitRatio * 100)} % hits` : '') +
              (run.churn ? `, staleness max ${run.churn.stalenessMs.max} ms over ${run.churn.writes} writes` : ''),
          );
          runs[server.name].push(run);
          await afterRun();
        }
      }
    } finally {
      if (UNCOUNTED.has(scenario)) await setCounter(stores, true);
      for (const store of stores) await dropDeletable(store);
    }
    const figures = Object.fromEntries(
      who.filter(({ name }) => runs[name].length > 0).map(({ name }) => [name, combine(runs[name])]),
    );
    step.scenarios[scenario] = {
      ...figures,
      ...(figures.baseline && { ratio: ratios(figures.service, figures.baseline) }),
      // The same figures of each other service ÷ the direct service's, from the same run.
      ...(services.length > 1 &&
        figures.service && {
          topologyRatio: Object.fromEntries(
            services
              .slice(1)
              .filter(({ name }) => figures[name])
              .map(({ name }) => [name, topologyRatios(figures[name], figures.service)]),
          ),
        }),
      ...(figures.cache && { cacheVerdict: cacheVerdict(figures.cache, figures.service) }),
      ...(release && figures[release.name] && { releaseRatio: releaseRatios(figures.service, figures[release.name]) }),
      ...(figures.textbook && { textbookRatio: releaseRatios(figures.service, figures.textbook) }),
    };
  }

  for (const rows of rowSteps) {
    // read-one draws from the blogs seeded last: ids without gaps (delete runs leave some).
    for (const own of stores) own.readIds = (await seed(own.db, rows)) ?? own.readIds;
    if (spreadComments > 0) for (const own of stores) await seedSpreadComments(own, spreadComments);
    if (replica)
      await replicaServes(
        db,
        replica.url(database),
        services.find((s) => s.name === 'service-replica'),
      );
    if (viaCache) await cachePurged(db);
    if (options.textbook) await mirrorBlogs(db);
    await warmUp(servers);
    if (viaCache) await warmCache(services.find((server) => server.cache));
    const step = {
      rows,
      duration,
      connections,
      deletesPerSecond: quick?.deletesPerSecond ?? DELETES_PER_SECOND,
      scenarios: {},
      pagesChecked: 0,
      filtersChecked: 0,
      // Not in the check, whose time is short and which reads no idle figures.
      idleCpuMsPerSecond: budget ? {} : await idleCpu(servers, meters),
      deepCursors: {},
      commentCursors: {},
    };
    for (const own of stores) {
      const mine = servers.filter((server) => server.store === own && !server.textbook);
      step.pagesChecked += await checkPages(own.db, mine);
      step.filtersChecked += await checkFilters(own.db, mine);
      step.filtersChecked += await checkTags(own, mine);
      step.pagesChecked += await checkComments(own, mine);
    }
    for (const scenario of scenarios) await runScenario(step, scenario, rounds, measured);
    step.rssPeakMb = Object.fromEntries(servers.map((server) => [server.name, peakRssMb(server.pid)]));
    step.serviceRssPeakMb = step.rssPeakMb.service;
    results.steps.push(step);
    if (scenarios.length > 0)
      process.stdout.write(
        `\n${table(step, cpuRelease)}\n\n${cpuTable(step, measured)}\n\n${serverTable(step, measured)}\n`,
      );
    if (step.scenarios['search-storm'])
      process.stdout.write(`\n${stormTable(step.scenarios['search-storm'], servers)}\n`);
    if (viaCache)
      process.stdout.write(
        `\n${cacheTable(
          step,
          services.find((server) => server.cache),
        )}\n`,
      );
  }
  if (results.steps.length > 1) process.stdout.write(`\n${growthTable(results.steps)}\n`);

  if (budget) {
    // A scenario over its limit runs again before it fails the check, judged on all its rounds: on a busy 2-core
    // machine one short run's median can pass a limit by noise alone (docs/performance.md, "The CI guard").
    const [step] = results.steps;
    let verdict = checkBudget(step, budget, scenarios, cpuRelease);
    if (verdict.failing.length > 0) {
      const first = verdict.lines.slice(0, -1).join('\n');
      process.stdout.write(
        `\n${first}\nover the limit: ${verdict.failing.join(', ')}; ${CHECK.confirmRounds} more rounds each\n`,
      );
      // A scenario bounded by another's CPU gets its rounds after that one's, paired round by round.
      const again = new Set(verdict.failing.flatMap((name) => [budget.scenarios[name]?.of ?? [], name].flat()));
      for (const scenario of again) await runScenario(step, scenario, CHECK.confirmRounds, measured);
      verdict = checkBudget(step, budget, scenarios, cpuRelease);
    }
    // Over its limit without the release beside it, a scenario gets a run of its own beside the release (the verdict
    // then is that run's); a scenario bounded by another's (`of`) has no release to turn to.
    const besideRelease =
      !verdict.ok && !cpuRelease && budget.release && verdict.failing.every((name) => !budget.scenarios[name].of);
    if (scenarios.length > 0)
      process.stdout.write(`\n${verdict.lines.slice(0, besideRelease ? -1 : undefined).join('\n')}\n`);
    if (besideRelease) checkAgain = verdict.failing;
    else if (!verdict.ok) process.exitCode = 1;

    if (guard.throughput.length > 0) {
      // After the CPU half, whose budgets were measured on the seeded table alone.
      throughputStep = { ...step, ...THROUGHPUT_CHECK, scenarios: {}, deepCursors: {}, commentCursors: {} };
      const pair = [services[0], services.find((server) => server.release)];
      for (const scenario of guard.throughput)
        await runScenario(throughputStep, scenario, THROUGHPUT_CHECK.rounds, pair);
      let speed = checkThroughput(throughputStep, budget, guard.throughput, release.name);
      const below = speed.failing.filter((name) => throughputStep.scenarios[name]?.service);
      if (below.length > 0) {
        process.stdout.write(
          `\n${speed.lines.slice(0, -1).join('\n')}\nbelow the minimum: ${below.join(', ')}; ${THROUGHPUT_CHECK.confirmRounds} more rounds each\n`,
        );
        for (const scenario of below) await runScenario(throughputStep, scenario, THROUGHPUT_CHECK.confirmRounds, pair);
        speed = checkThroughput(throughputStep, budget, guard.throughput, release.name);
      }
      process.stdout.write(`\n${speed.lines.join('\n')}\n`);
      if (!speed.ok) process.exitCode = 1;
    }
  }

  if (!budget) {
    const file = join(root, 'bench', 'results', `${results.startedAt.replace(/[:.]/g, '-')}.json`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
    log(`results written to ${file}`);
  }
  const unexpected = [...results.steps, ...(throughputStep ? [throughputStep] : [])].flatMap((step) =>
    Object.entries(step.scenarios).flatMap(([name, s]) =>
      servers
        .map(({ name: who }) => who)
        .filter(
          (who) =>
            s[who] &&
            ([s[who], s[who].companion].some((f) => f && f.non2xx + f.errors + f.timeouts > 0) ||
              s[who].churn?.writeFailures + s[who].churn?.pollFailures > 0),
        )
        .map((who) => `${name}/${who}`),
    ),
  );
  if (unexpected.length > 0) {
    log(`unexpected non-2xx responses or socket errors in: ${unexpected.join(', ')}`);
    process.exitCode = 1;
  }
}

/** A database the bench seeds and reads, with a small pool of its own (closed at the end). */
function openStore(url, settings = {}) {
  const db = new pg.Pool({ connectionString: url, max: 2, ...settings });
  cleanups.unshift(() => db.end());
  return { url, db, readIds: [1, 1], updateIds: [] };
}

/**
 * Whether the release build answers `scenario` (an older release may lack an endpoint or a filter):
 * checked once per scenario by one request of it. Logs why not.
 */
async function releaseServes(server, scenario, step) {
  if (server.skip?.has(scenario)) return false;
  let why;
  try {
    if (UNCOUNTED.has(scenario) && !(await hasTable(server.store.db, 'blog_counts'))) why = 'no blog_counts';
    else if (COMMENTED.includes(scenario) && server.store.commentBlog === undefined) why = 'no comments table';
    else if (REVISED.includes(scenario) && server.store.revisionBlog === undefined) why = 'no blog_revisions table';
    else {
      const probe = await runLoad({ ...(await prepareRun(server, scenario, step)), url: server.url, amount: 1 });
      if (probe.non2xx + probe.errors + probe.timeouts > 0) why = `answered ${JSON.stringify(probe.statusCodes)}`;
    }
  } catch (error) {
    why = error.message;
  } finally {
    await afterRun();
  }
  if (why !== undefined) log(`${server.name} skips ${scenario}: ${why}`);
  return why === undefined;
}
/** A fresh database on `serverUrl` or the local server, dropped at the end; or DATABASE_URL as it is. */
async function prepareDatabase(serverUrl = 'postgres://postgres@127.0.0.1:5432/postgres', suffix = '') {
  if (process.env.DATABASE_URL && suffix === '') {
    log(`using DATABASE_URL (${new URL(process.env.DATABASE_URL).pathname.slice(1)})`);
    return process.env.DATABASE_URL;
  }
  // A release's database lives next to DATABASE_URL's when that is given.
  const server = (process.env.DATABASE_URL ?? serverUrl).replace(/\/[^/]*$/, '');
  const name = `blog_bench_${Date.now()}${suffix}`;
  await adminQuery(`${server}/postgres`, `CREATE DATABASE "${name}"`);
  const url = `${server}/${name}`;
  if (options['keep-db']) log(`database ${url} (kept)`);
  else cleanups.push(() => adminQuery(`${server}/postgres`, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  log(`fresh database ${name}`);
  return url;
}

/**
 * Gives the bench's role in `database` the session settings the service cannot send through
 * PgBouncer, as docs/operations.md asks of the operator; the service's own list, from dist/.
 */
async function applySessionSettings(url, database) {
  const { SESSION_SETTINGS } = require(join(root, 'dist', 'database', 'data-source-options.js'));
  for (const [name, value] of Object.entries(SESSION_SETTINGS)) {
    await adminQuery(url, `ALTER ROLE CURRENT_USER IN DATABASE "${database}" SET ${name} = '${value}'`);
  }
}

/**
 * The pid of the postmaster of `url`'s server, the parent of the backend serving this query; or
 * undefined when that backend is not a process of this machine (a server elsewhere, a container).
 */
async function postmasterPid(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    return Number(readFileSync(`/proc/${rows[0].pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    log("PostgreSQL's processes are not on this machine: no database CPU figures");
    return undefined;
  } finally {
    await client.end();
  }
}

/**
 * Waits until the replica has replayed all the primary has written and `service` reports it serving
 * reads (`/health/ready`), so the replica topology's figures are of reads on the replica.
 */
async function replicaServes(db, replicaUrl, service) {
  const deadline = Date.now() + 120_000;
  const target = (await db.query('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0].lsn;
  const replica = new pg.Client({ connectionString: replicaUrl });
  await replica.connect();
  try {
    const caughtUp = async () =>
      (await replica.query('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [target])).rows[0].ok;
    while (!(await caughtUp())) {
      if (Date.now() > deadline) throw new Error(`the replica did not replay up to ${target} within 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A restartpoint now rather than during the runs, as on the primary after seeding.
    await replica.query('CHECKPOINT');
  } finally {
    await replica.end();
  }
  for (;;) {
    const body = await (await fetch(`${service.url}/health/ready`)).json().catch(() => ({}));
    if (body.details?.database_replica_1?.serving === true) break;
    if (Date.now() > deadline) throw new Error(`${service.name}: replica not serving: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log(`replica caught up to ${target} and serving ${service.name}'s reads`);
}

async function adminQuery(url, sql) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Starts a server (`node args` in `cwd`) on a free port and waits until /health/live answers. */
async function startServer(name, args, env, cwd = root) {
  const port = await freePort();
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  child.on('exit', (code, signal) => {
    children.delete(child);
    if (!stopping) {
      log(`${name} exited early (${code ?? signal}):\n${stderr}`);
      void stop().then(() => process.exit(1));
    }
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/health/live`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${name} did not answer /health/live within 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  log(`${name} ready on :${port} (pid ${child.pid})`);
  return { name, url, pid: child.pid };
}

/**
 * `--via-cache`: Varnish with the shipped configuration on `port` in front of `service` (test/support/varnish-server.js
 * starts it), as a server of the rounds whose pid is varnishd's cache process (the child of its manager).
 */
async function startCache(service, port) {
  const backend = new URL(service.url);
  const varnish = await startVarnish({ backendHost: backend.hostname, backendPort: Number(backend.port), port });
  cleanups.push(async () => varnish.close());
  const { manager, child, workdir } = varnishProcesses(port);
  // varnishd -V writes its version on stderr.
  const version = /varnish-[\d.]+/.exec(spawnSync('varnishd', ['-V'], { encoding: 'utf8' }).stderr)?.[0] ?? 'varnish';
  log(`cache: ${version} on :${port} (manager ${manager}, cache process ${child}) in front of ${service.name}`);
  return { name: 'cache', url: varnish.url, pid: child, cache: { workdir, version }, backend: service };
}

/** The varnishd listening on `port`: its manager's and its cache process's pids, and its working directory (`-n`). */
function varnishProcesses(port) {
  const processes = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
        return argv[0].endsWith('varnishd') ? [{ pid: Number(pid), ppid, argv }] : [];
      } catch {
        return [];
      }
    });
  const manager = processes.find(
    ({ argv, ppid }) =>
      argv.some((arg, i) => argv[i - 1] === '-a' && arg.split(',')[0].endsWith(`:${port}`)) &&
      !processes.some((other) => other.pid === ppid),
  );
  const child = manager && processes.find(({ ppid }) => ppid === manager.pid);
  if (!child) throw new Error(`no varnishd cache process listening on :${port}`);
  const n = manager.argv.indexOf('-n');
  return { manager: manager.pid, child: child.pid, workdir: n >= 0 ? manager.argv[n + 1] : undefined };
}

/** The cache's counters of hits, misses and passes (varnishstat). */
function cacheCounters({ workdir }) {
  const names = ['MAIN.cache_hit', 'MAIN.cache_miss', 'MAIN.s_pass'];
  const out = execFileSync(
    'varnishstat',
    [...(workdir ? ['-n', workdir] : []), '-1', '-j', ...names.flatMap((name) => ['-f', name])],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const parsed = JSON.parse(out);
  const counters = parsed.counters ?? parsed;
  const [hits, misses, passes] = names.map((name) => Number(counters[name]?.value ?? 0));
  return { hits, misses, passes };
}

/**
 * Waits until the service has purged the cache of every change so far (the outbox empty, the cache's position at
 * the newest event), so that reads through it show what the database holds: seeding writes thousands of blogs.
 */
async function cachePurged(db) {
  const started = Date.now();
  const deadline = started + 600_000;
  for (;;) {
    const { rows } = await db.query(
      `SELECT NOT EXISTS (SELECT 1 FROM event_outbox) AND coalesce((SELECT min(purged_through) FROM cache_purges), -1)
         >= (SELECT coalesce(max(id), 0) FROM events) AS done`,
    );
    if (rows[0].done) break;
    if (Date.now() > deadline) throw new Error('the service did not purge the cache of the seeded blogs in 600 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  log(`cache purged of every change so far (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/**
 * Reads through the cache, once each, every page the cached scenarios ask for: the blogs read-one and cache-churn read
 * (at most {@link CACHE_WARM_LIMIT}; more, and read-one there starts cold), the first page and each tag's.
 */
async function warmCache(cache) {
  const started = Date.now();
  const [first, last] = cache.store.readIds;
  const count = Math.min(last - first + 1, CACHE_WARM_LIMIT);
  if (count < last - first + 1)
    log(`cache: read-one's ${last - first + 1} blogs are more than it warms: it starts cold`);
  const paths = [
    ...Array.from({ length: count }, (_, i) => `/api/v1/blogs/${first + i}`),
    ...cache.store.updateIds.map((id) => `/api/v1/blogs/${id}`),
    '/api/v1/blogs?limit=10&offset=0',
    ...Array.from({ length: TAGS }, (_, k) => `/api/v1/blogs?tag=${tagSlug(k + 1)}&limit=10&offset=0`),
  ];
  let next = 0;
  const worker = async () => {
    while (next < paths.length) {
      const response = await fetch(`${cache.url}${paths[next++]}`);
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`cache warm-up: ${paths[next - 1]} answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  log(
    `cache warmed with ${paths.length.toLocaleString('en')} pages in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
}

/** Whether `db` has the table `name` (an older release's schema may not have `blog_counts` or `tags`). */
async function hasTable(db, name) {
  let known = tables.get(db);
  if (known === undefined) tables.set(db, (known = new Map()));
  if (!known.has(name)) {
    const { rows } = await db.query(`SELECT to_regclass($1) IS NOT NULL AS "exists"`, [name]);
    known.set(name, rows[0].exists);
  }
  return known.get(name);
}
const tables = new WeakMap();

async function countBlogs(db) {
  const counted = await hasTable(db, 'blog_counts');
  const { rows } = await db.query(
    counted ? 'SELECT sum(n)::int8 AS total FROM blog_counts' : 'SELECT count(*) AS total FROM blogs',
  );
  return Number(rows[0].total);
}

/**
 * Checks the first, the last and a middle page of both servers against plain SQL (`count(*)`,
 * `ORDER BY created_at DESC, id DESC LIMIT OFFSET`), so the figures are of correct answers.
 * @throws when a page or its total differs.
 */
async function checkPages(db, servers) {
  const count = Number((await db.query('SELECT count(*) AS n FROM blogs')).rows[0].n);
  const offsets = [0, Math.floor(count / 2) - 5, Math.floor(count / 2) + 3, Math.max(0, count - 10), count - 3];
  for (const offset of offsets) {
    const { rows } = await db.query('SELECT id FROM blogs ORDER BY created_at DESC, id DESC LIMIT 10 OFFSET $1', [
      offset,
    ]);
    const expected = JSON.stringify({ total: count, ids: rows.map((row) => row.id) });
    for (const server of servers) {
      const body = await (await fetch(`${server.url}/api/v1/blogs?limit=10&offset=${offset}`)).json();
      const got = JSON.stringify({ total: body.total, ids: body.data.map((blog) => blog.id) });
      if (got !== expected) throw new Error(`${server.name} page at offset ${offset}: ${got}, expected ${expected}`);
    }
  }
  log(
    `pages at offsets ${offsets.join(', ')} and total ${count.toLocaleString('en')} match SQL on ${servers.map((server) => server.name).join(', ')}`,
  );
  return offsets.length;
}

/**
 * Disables the counter's insert trigger in every store that has one, or enables it again and
 * recounts what was inserted without it.
 */
async function setCounter(stores, enabled) {
  for (const { db } of stores) {
    if (!(await hasTable(db, 'blog_counts'))) continue;
    await db.query(`ALTER TABLE blogs ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER blogs_count_inserted`);
    if (enabled) {
      await db.query(`UPDATE blog_counts SET n = CASE WHEN shard = 0 THEN (SELECT count(*) FROM blogs) ELSE 0 END`);
    }
  }
}

/**
 * Words of the seeded text: blogs read like prose, so the search has a realistic vocabulary and
 * index. Every seeded blog also gets {@link COMMON_WORD} (1 in 10) or {@link RARE_WORD} (1 in 10,000).
 */
const VOCABULARY = `time year people way day man thing woman life child world school state family student group
country problem hand part place case week company system program question work government number night point
home water room mother area money story fact month lot right study book eye job word business issue side kind
head house service friend father power hour game line end member law car city community name president team
minute idea kid body information back parent face others level office door health person art war history party
result change morning reason research girl guy moment air teacher force education foot boy age policy music market
sense nation plan college interest death experience effect class control care field development role effort rate
heart drug show leader light voice wife police mind price report decision son view relationship town road arm
difference value building action model season society tax director position player record paper space ground form
event official matter center couple site project activity star table need court oil situation cost industry figure
street image phone data picture practice piece land product doctor wall patient worker news test movie north love
support technology step baby computer type attention film tree source organization hair window evidence population
site garden river mountain ocean forest island valley desert bridge castle village harbor garden kitchen bread
coffee tea winter summer spring autumn rain snow wind cloud storm sun moon planet engine signal network server
database query index cursor token secret migration release version feature bug test deploy cluster replica`
  .split(/\s+/)
  .filter((word) => word !== '');
/** In one seeded blog in 10 (the search-common scenario), and one in 10,000 (search-rare). */
const COMMON_WORD = 'lighthouse';
const RARE_WORD = 'zephyr';
/** Seeded blogs have one of this many authors (`Author 0` …), ~1,000 blogs each at 1M. */
const AUTHORS = 1000;
const LIST_AUTHOR = 'Author 7';

/**
 * SQL (a LATERAL item of the seeding's FROM, over the blog number `g`; $4 is {@link TAG_CUMULATIVE} but its last):
 * `tags.slugs`, the blog's 0–5 tags. Hashes of -(16g + i), a range apart from the words' 64g + i, give the number of
 * tags (i = 0: 0–5, each one in 6) and 12 candidates (i = 1 … 12), each a Zipf draw as bench/tags.mjs's `zipfTag`:
 * `width_bucket(u, $4) + 1` is the first k whose cumulative weight passes the uniform u. The first distinct
 * candidates in draw order are the tags: a popular tag drawn twice is taken once, and the rare blog whose 12 draws
 * hold fewer distinct tags than its number has fewer.
 */
const SEED_TAGS = `LATERAL (SELECT coalesce(array_agg('tag-' || d.k ORDER BY d.first), '{}') AS slugs
  FROM (SELECT c.k, min(c.i) AS first FROM (
      SELECT i, width_bucket(((hashint4(-(g * 16 + i)) & 2147483647) / 2147483648.0)::float8, $4::float8[]) + 1 AS k
      FROM generate_series(1, 12) i) c
    GROUP BY c.k ORDER BY min(c.i) LIMIT (hashint4(-(g * 16)) & 2147483647) % 6) d) tags`;

/**
 * SQL (CTEs after the seeding's `inserted`), by the insert trigger whose work each does for the inserted blogs in one
 * statement: the tag counter (a release before FoldTagCountShards has shards: shard 0, as its backfill), the tag
 * index (`blog_tags`) and the blog counter (shard 0). `sharded`: whether `tag_counts` has the column `shard`.
 */
const SEED_TRIGGER_ROWS = {
  blogs_count_tags_inserted: (sharded) => `counted AS (INSERT INTO tag_counts (tag_slug, ${sharded ? 'shard, ' : ''}n)
    SELECT s, ${sharded ? '0, ' : ''}count(*) FROM inserted CROSS JOIN LATERAL unnest(inserted.tag_slugs) s
    WHERE inserted.published_at IS NOT NULL GROUP BY s ORDER BY s
    ON CONFLICT (tag_slug${sharded ? ', shard' : ''}) DO UPDATE SET n = tag_counts.n + EXCLUDED.n)`,
  blogs_index_tags_inserted: () => `indexed AS (INSERT INTO blog_tags (tag_slug, blog_created_at, blog_id)
    SELECT DISTINCT s, inserted.created_at, inserted.id FROM inserted CROSS JOIN LATERAL unnest(inserted.tag_slugs) s)`,
  blogs_count_inserted: () => `blogs_counted AS (UPDATE blog_counts
    SET n = n + (SELECT count(*) FROM inserted WHERE inserted.published_at IS NOT NULL) WHERE shard = 0)`,
};

/**
 * Inserts seeded blogs until there are `target`, in batches, then vacuums for index-only scans.
 * @returns [first, last] id of the blogs it inserted (consecutive), or undefined when it inserted none.
 */
async function seed(db, target) {
  const started = Date.now();
  let count = await countBlogs(db);
  if (count >= target) return undefined;
  let first;
  let last;
  const tagged = await hasTable(db, 'tags');
  const sharded =
    tagged &&
    (
      await db.query(
        `SELECT 1 FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 'tag_counts' AND column_name = 'shard'`,
      )
    ).rowCount > 0;
  // The tag triggers (counter and index) would run once per tagged blog (three times the seeding's time each), the blog
  // counter's once per blog (each finding the row its earlier updates in the batch left: quadratic): off while a batch
  // is inserted, in its transaction (so no other session sees them off), their rows written by the statement.
  const enabled = tagged
    ? (
        await db.query(
          `SELECT tgname FROM pg_trigger WHERE tgrelid = 'blogs'::regclass AND tgname = ANY($1) AND tgenabled <> 'D'`,
          [Object.keys(SEED_TRIGGER_ROWS)],
        )
      ).rows.map((row) => row.tgname)
    : [];
  log(
    `seeding ${count.toLocaleString('en')} → ${target.toLocaleString('en')} blogs${tagged ? '' : ' (no tags: no tags table)'}`,
  );
  while (count < target) {
    const batch = Math.min(SEED_BATCH, target - count);
    // Seeded blogs are older than anything the scenarios create, spaced one second apart; 60 words
    // of content and 4 of title, drawn by a hash of the blog's number; 0–5 tags (SEED_TAGS).
    const client = await db.connect();
    let rows;
    try {
      await client.query('BEGIN');
      for (const trigger of enabled) await client.query(`ALTER TABLE blogs DISABLE TRIGGER ${trigger}`);
      ({ rows } = await client.query(
        `WITH inserted AS (INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at${tagged ? ', tag_slugs' : ''})
         SELECT initcap(words.title) || ' ' || g, words.content
             || CASE WHEN g % 10 = 3 THEN ' ${COMMON_WORD}' ELSE '' END
             || CASE WHEN g % 10000 = 7 THEN ' ${RARE_WORD}' ELSE '' END,
           'Author ' || (g % ${AUTHORS}), 'seed', t, t${tagged ? ', tags.slugs' : ''}
         FROM generate_series($1::int, $2::int) g,
           LATERAL (SELECT timestamptz '2020-01-01' + g * interval '1 second' AS t) ts,
           LATERAL (SELECT string_agg(w.word, ' ') FILTER (WHERE i <= 4) AS title, string_agg(w.word, ' ') AS content
             FROM generate_series(1, 60) i,
               LATERAL (SELECT ($3::text[])[1 + (hashint4(g * 64 + i) & 2147483647) % cardinality($3::text[])] AS word) w) words
           ${tagged ? `, ${SEED_TAGS}` : ''}
         RETURNING id${enabled.length > 0 ? ', created_at, published_at, tag_slugs' : ''})${enabled.map((trigger) => `, ${SEED_TRIGGER_ROWS[trigger](sharded)}`).join('')}
         SELECT min(id) AS first, max(id) AS last FROM inserted`,
        [count + 1, count + batch, VOCABULARY, ...(tagged ? [TAG_CUMULATIVE.slice(0, -1)] : [])],
      ));
      for (const trigger of enabled) await client.query(`ALTER TABLE blogs ENABLE TRIGGER ${trigger}`);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    first ??= rows[0].first;
    last = rows[0].last;
    count += batch;
    log(
      `  seeded ${count.toLocaleString('en')} / ${target.toLocaleString('en')} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  // The seeding writes the tags and updates each tag's counter once per batch: vacuumed too, as autovacuum would (it
  // is off here).
  const vacuumed = [
    'blogs',
    ...(tagged ? ['tags', 'tag_counts'] : []),
    ...((await hasTable(db, 'blog_tags')) ? ['blog_tags'] : []),
  ];
  await db.query(`VACUUM (ANALYZE) ${vacuumed.join(', ')}`);
  // Else the checkpointer writes the seeded pages out during the first minutes of runs, and its CPU
  // shows in their PostgreSQL figures. Needs a superuser (or pg_checkpoint) on a DATABASE_URL.
  await db.query('CHECKPOINT').catch((error) => log(`CHECKPOINT: ${error.message}`));
  log(`seeded and vacuumed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return [first, last];
}

/**
 * The job of one run of `scenario` on `server`, from its database: ids to read and update, page
 * offsets, a page-1,000 cursor of its own, or fresh blogs to delete.
 */
async function prepareRun(server, scenario, step) {
  const { db, readIds, updateIds } = server.store;
  const total = await countBlogs(db);
  const job = {
    scenario,
    connections: server.cache ? cacheConnections : step.connections,
    duration: step.duration,
    token,
    ids: readIds,
    updateIds,
    // The last page of ordinary blogs; the large ones are older still.
    deepOffset: Math.max(0, total - LARGE_BLOGS - 10),
    largeOffset: Math.max(0, total - LARGE_BLOGS),
    listAuthor: LIST_AUTHOR,
    commonWord: COMMON_WORD,
    rareWord: RARE_WORD,
  };
  if (job.scenario === 'cursor-deep') {
    step.deepCursors[server.name] ??= await deepCursor(db, server);
    return { ...job, deepCursor: step.deepCursors[server.name] };
  }
  if (COMMENTED.includes(job.scenario)) {
    const { commentBlog } = server.store;
    if (job.scenario !== 'comments-cursor') return { ...job, commentBlog };
    step.commentCursors[server.name] ??= await commentCursor(db, server, commentBlog);
    return { ...job, commentBlog, commentCursor: step.commentCursors[server.name] };
  }
  if (job.scenario === 'delete') return { ...job, deleteIds: await deletableBlogs(server.store, step) };
  if (REVISED.includes(job.scenario)) return { ...job, revisionBlog: server.store.revisionBlog };
  return job;
}

/**
 * The blogs standing ready for delete runs of `step` in `store`: ids [first, last], contiguous, at least its `duration`
 * × `deletesPerSecond` ({@link DELETES_PER_SECOND}, or the check's own). A run deletes from the first up; the
 * next run's are its rest topped up at the end, so a run seeds about what the one before it deleted (seeding them all
 * for each run, and deleting what it left, took half the check). {@link dropDeletable} ends it.
 */
async function deletableBlogs(store, step) {
  const { db } = store;
  const { connections } = step;
  const wanted = step.duration * step.deletesPerSecond;
  let kept;
  if (store.deletable) {
    const { rows } = await db.query(
      'SELECT min(id) AS first, count(*)::int AS n FROM blogs WHERE id BETWEEN $1 AND $2',
      [...store.deletable],
    );
    const [{ first, n }] = rows;
    // The lowest `connections` may still be on their way to the server from the last run's open requests: deleted
    // here, so that none of them answers the next run 404.
    if (n > connections && n === store.deletable[1] - first + 1) {
      await db.query('DELETE FROM blogs WHERE id BETWEEN $1 AND $2', [first, first + connections - 1]);
      kept = [first + connections, store.deletable[1]];
    } else await dropDeletable(store);
  }
  const missing = wanted - (kept ? kept[1] - kept[0] + 1 : 0);
  if (missing > 0) {
    const ids = [];
    for (let from = 1; from <= missing; from += DELETABLE_CHUNK) {
      const { rows } = await db.query(
        `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'Bench delete ' || g, 'To be deleted', 'Bench', $1
         FROM generate_series($2::int, $3::int) g RETURNING id`,
        [BENCH_SUB, from, Math.min(from + DELETABLE_CHUNK - 1, missing)],
      );
      ids.push(...rows.map((row) => row.id));
    }
    const added = [Math.min(...ids), Math.max(...ids)];
    if ((kept && added[0] !== kept[1] + 1) || added[1] - added[0] + 1 !== missing) {
      // Another insert took ids between them: start again with a range of one piece.
      store.deletable = [kept?.[0] ?? added[0], added[1]];
      await dropDeletable(store);
      return deletableBlogs(store, step);
    }
    kept = [kept?.[0] ?? added[0], added[1]];
  }
  store.deletable = kept;
  return kept;
}

/** Deletes what is left of `store`'s {@link deletableBlogs}, so the table is as before for the next scenario. */
async function dropDeletable(store) {
  if (!store.deletable) return;
  const [first, last] = store.deletable;
  for (let from = first; from <= last; from += DELETABLE_CHUNK) {
    await store.db.query('DELETE FROM blogs WHERE id BETWEEN $1 AND $2', [
      from,
      Math.min(from + DELETABLE_CHUNK - 1, last),
    ]);
  }
  store.deletable = undefined;
}

const cleanupsAfterRun = [];
async function afterRun() {
  while (cleanupsAfterRun.length > 0) await cleanupsAfterRun.pop()();
}

/**
 * Walks `server`'s nextCursor chain to page {@link CURSOR_DEEP_PAGE} of 10 blogs a page and checks
 * that page against SQL's `OFFSET`. @returns the cursor of that page.
 */
async function deepCursor(db, server) {
  const total = await countBlogs(db);
  const page = Math.max(1, Math.min(CURSOR_DEEP_PAGE, Math.floor(total / 10)));
  let cursor;
  // A cursor holds a position, not a page size: pages of 100 as far as they go, then of 10.
  for (let skipped = 0; skipped < (page - 1) * 10;) {
    const limit = (page - 1) * 10 - skipped >= 100 ? 100 : 10;
    const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const body = await (await fetch(`${server.url}/api/v1/blogs?limit=${limit}${query}`)).json();
    if (typeof body.nextCursor !== 'string') throw new Error(`${server.name}: no nextCursor after ${skipped} blogs`);
    cursor = body.nextCursor;
    skipped += limit;
  }
  const { rows } = await db.query('SELECT id FROM blogs ORDER BY created_at DESC, id DESC LIMIT 10 OFFSET $1', [
    (page - 1) * 10,
  ]);
  const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
  const body = await (await fetch(`${server.url}/api/v1/blogs?limit=10${query}`)).json();
  const [got, expected] = [body.data.map((blog) => blog.id), rows.map((row) => row.id)].map((ids) => ids.join());
  if (got !== expected) throw new Error(`${server.name} cursor page ${page}: ${got}, expected ${expected}`);
  log(`${server.name}: cursor walk to page ${page} matches SQL`);
  return cursor ?? '';
}

/**
 * Walks `server`'s nextCursor chain of blog `blogId`'s comments to page {@link COMMENTS_CURSOR_PAGE} of 10 (pages of
 * 100 as far as they go) and checks that page against SQL's `OFFSET`. @returns the cursor of that page.
 */
async function commentCursor(db, server, blogId) {
  const path = `${server.url}/api/v1/blogs/${blogId}/comments`;
  const skip = (COMMENTS_CURSOR_PAGE - 1) * 10;
  let cursor;
  for (let skipped = 0; skipped < skip;) {
    const limit = skip - skipped >= 100 ? 100 : 10;
    const query = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
    const body = await (await fetch(`${path}?limit=${limit}${query}`)).json();
    if (typeof body.nextCursor !== 'string') throw new Error(`${server.name}: no comments nextCursor after ${skipped}`);
    cursor = body.nextCursor;
    skipped += limit;
  }
  const { rows } = await db.query(
    'SELECT id FROM comments WHERE blog_id = $1 ORDER BY created_at, id LIMIT 10 OFFSET $2',
    [blogId, skip],
  );
  const body = await (await fetch(`${path}?limit=10&cursor=${encodeURIComponent(cursor)}`)).json();
  const [got, expected] = [body.data.map((comment) => comment.id), rows.map((row) => row.id)].map((ids) => ids.join());
  if (got !== expected || rows.length !== 10) {
    throw new Error(`${server.name} comments cursor page ${COMMENTS_CURSOR_PAGE}: ${got}, expected ${expected}`);
  }
  log(`${server.name}: comments cursor walk to page ${COMMENTS_CURSOR_PAGE} matches SQL`);
  return cursor;
}

/**
 * Checks the first page and the total of the commented blog's comments on every server of `store` against plain SQL
 * (`count(*)`, `ORDER BY created_at, id`). @throws on any difference; in a store without comments (a release's), its
 * servers skip the comment scenarios instead.
 */
async function checkComments({ db, commentBlog }, servers) {
  if (commentBlog === undefined) {
    for (const server of servers) {
      if (!server.release) throw new Error(`${server.name}: no comments table`);
      log(`${server.name}: no comments table: it skips ${COMMENTED.join(', ')}`);
      server.skip = new Set([...(server.skip ?? []), ...COMMENTED]);
    }
    return 0;
  }
  const { rows } = await db.query(
    'SELECT id, count(*) OVER () AS total FROM comments WHERE blog_id = $1 ORDER BY created_at, id LIMIT 10',
    [commentBlog],
  );
  const expected = JSON.stringify({ total: Number(rows[0].total), ids: rows.map((row) => row.id) });
  for (const server of servers) {
    const body = await (await fetch(`${server.url}/api/v1/blogs/${commentBlog}/comments?limit=10`)).json();
    const got = JSON.stringify({ total: body.total, ids: body.data?.map((comment) => comment.id) });
    if (got !== expected)
      throw new Error(`${server.name} comments of blog ${commentBlog}: ${got}, expected ${expected}`);
  }
  log(
    `comments of blog ${commentBlog}: total ${Number(rows[0].total).toLocaleString('en')} and first page match SQL on ${servers.map((server) => server.name).join(', ')}`,
  );
  return 1;
}

/**
 * Checks the totals and first pages of the list-author and search scenarios on both servers
 * against plain SQL (`count(*)`, `to_tsvector` computed on the fly). @throws on any difference.
 */
async function checkFilters(db, servers) {
  const cases = [
    ['author', LIST_AUTHOR, 'author = $1'],
    ['q', COMMON_WORD, `to_tsvector('simple', title || ' ' || content) @@ websearch_to_tsquery('simple', $1)`],
    ['q', RARE_WORD, `to_tsvector('simple', title || ' ' || content) @@ websearch_to_tsquery('simple', $1)`],
    // The most popular tag, one of the middle and the least popular (perhaps on no blog at a small size).
    ...((await hasTable(db, 'tags')) ? [1, 30, TAGS].map((k) => ['tag', tagSlug(k), '$1 = ANY(tag_slugs)']) : []),
  ];
  for (const [parameter, value, where] of cases) {
    const { rows } = await db.query(
      `SELECT id, count(*) OVER () AS total FROM blogs WHERE ${where} ORDER BY created_at DESC, id DESC`,
      [value],
    );
    // A search's total stops at the cap (docs/api.md, "Search").
    const counted = Number(rows[0]?.total ?? 0);
    const expected = JSON.stringify({
      total: parameter === 'q' ? Math.min(counted, SEARCH_TOTAL_CAP) : counted,
      ids: rows.slice(0, 10).map((row) => row.id),
    });
    for (const server of servers) {
      const body = await (
        await fetch(`${server.url}/api/v1/blogs?limit=10&${parameter}=${encodeURIComponent(value)}`)
      ).json();
      const got = JSON.stringify({ total: body.total, ids: body.data?.map((blog) => blog.id) });
      if (got === expected) continue;
      const message = `${server.name} ${parameter}=${value}: ${got}, expected ${expected}`;
      // An older release may not have the filter: it then skips the scenarios of that filter.
      if (!server.release) throw new Error(message);
      log(`${message}: it skips ${FILTERED[parameter].join(', ')}`);
      server.skip = new Set([...(server.skip ?? []), ...FILTERED[parameter]]);
    }
    log(
      `${parameter}=${value}: total ${Number(rows[0]?.total ?? 0).toLocaleString('en')} and first page match SQL on ${servers
        .filter((server) => !server.skip?.has(FILTERED[parameter][0]))
        .map((server) => server.name)
        .join(', ')}`,
    );
  }
  return cases.length;
}

/**
 * Checks the tag list's first page (`GET /tags`) against counts over the blogs' tags, and that a seeded blog's slug
 * is `blog-<id>` and reads back by it (read-slug), on every server of `store`. @throws on any difference; a release
 * that differs, or a store without tags, skips the scenarios of tags instead.
 */
async function checkTags({ db, readIds }, servers) {
  const skip = (server, why) => {
    if (!server.release) throw new Error(`${server.name}: ${why}`);
    log(`${server.name}: ${why}: it skips ${TAGGED.join(', ')}`);
    server.skip = new Set([...(server.skip ?? []), ...TAGGED]);
  };
  if (!(await hasTable(db, 'tags'))) {
    for (const server of servers) skip(server, 'no tags table');
    return 0;
  }
  const { rows } = await db.query(
    `SELECT s AS slug, t.name, count(*)::int AS count, count(*) OVER ()::int AS total
     FROM blogs, unnest(tag_slugs) s JOIN tags t ON t.slug = s
     WHERE published_at <= now() GROUP BY s, t.name ORDER BY count(*) DESC, s COLLATE "C" LIMIT 10`,
  );
  const expected = JSON.stringify({ total: rows[0]?.total ?? 0, data: rows.map(({ total: _t, ...tag }) => tag) });
  const [firstId, lastId] = readIds;
  const { rows: unslugged } = await db.query(
    `SELECT count(*)::int AS n FROM blogs WHERE id BETWEEN $1 AND $2 AND slug IS DISTINCT FROM 'blog-' || id`,
    [firstId, lastId],
  );
  if (unslugged[0].n > 0) throw new Error(`${unslugged[0].n} seeded blogs have a slug other than blog-<id>`);
  const ids = [firstId, Math.floor((firstId + lastId) / 2), lastId];
  for (const server of servers) {
    const body = await (await fetch(`${server.url}/api/v1/tags?limit=10`)).json().catch(() => ({}));
    const got = JSON.stringify({ total: body.total, data: body.data });
    if (got !== expected) {
      skip(server, `tags: ${got}, expected ${expected}`);
      continue;
    }
    for (const id of ids) {
      const response = await fetch(`${server.url}/api/v1/blogs/slug/blog-${id}`, { redirect: 'manual' });
      const blog = await response.json().catch(() => ({}));
      if (response.status !== 200 || blog.id !== id) {
        skip(server, `blog-${id} answered ${response.status} with id ${blog.id}`);
        break;
      }
    }
  }
  log(
    `tags: total ${(rows[0]?.total ?? 0).toLocaleString('en')} and first page match SQL, and blog-${ids.join(', blog-')} ` +
      `read back by slug, on ${servers
        .filter((server) => !server.skip?.has('tags'))
        .map((server) => server.name)
        .join(', ')}`,
  );
  return 1 + ids.length;
}

/** The list-large scenarios' blogs: older than every seeded one, so they stay the last page. */
async function seedLargeBlogs(db) {
  await db.query(
    `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
     SELECT 'Large blog ' || g, repeat('Lorem ipsum dolor sit amet, consectetur adipiscing elit. ', 180), 'Seeder',
       'seed', t, t
     FROM generate_series(1, $1::int) g, LATERAL (SELECT timestamptz '2000-01-01' + g * interval '1 second' AS t) s`,
    [LARGE_BLOGS],
  );
}

/**
 * SQL: inserts a comment for each row (blog_id, g) of `from` (g numbers it: its author, body and created_at, one
 * second apart from 2021-01-01, after every seeded blog), with the row trigger off (no counter update and no
 * `comment.created` event per row) and the counters added in the same statement, so `comment_counts` stays exact.
 * Run in a transaction, so that no other session sees the trigger off.
 */
async function insertComments(client, from, values) {
  await client.query('ALTER TABLE comments DISABLE TRIGGER comments_changed');
  await client.query(
    `WITH inserted AS (INSERT INTO comments (blog_id, author, body, owner_sub, created_at)
       SELECT s.blog_id, 'Reader ' || (s.g % 100), 'Comment ' || s.g || ': ' || repeat('well said, ', 8) || 'thanks.',
         'seed', timestamptz '2021-01-01' + s.g * interval '1 second'
       FROM (${from}) s RETURNING blog_id)
     INSERT INTO comment_counts (blog_id, n) SELECT blog_id, count(*) FROM inserted GROUP BY blog_id ORDER BY blog_id
     ON CONFLICT (blog_id) DO UPDATE SET n = comment_counts.n + EXCLUDED.n`,
    values,
  );
  await client.query('ALTER TABLE comments ENABLE TRIGGER comments_changed');
}

/** Runs `work(client)` in a transaction of its own on a client of `db`. */
async function inTransaction(db, work) {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The blog of the comments-first and comments-cursor scenarios, with {@link COMMENT_BLOG_COMMENTS} comments; created
 * between the large blogs and the seeded ones, so that list-large's page stays the large blogs. Once per store.
 * @returns its id, or undefined in a store without comments (an older release's).
 */
async function seedCommentBlog(db) {
  if (!(await hasTable(db, 'comments'))) return undefined;
  const started = Date.now();
  const id = await inTransaction(db, async (client) => {
    const { rows } = await client.query(
      `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
       VALUES ('Commented blog', 'A blog with many comments.', 'Seeder', 'seed', $1, $1) RETURNING id`,
      ['2019-06-01T00:00:00Z'],
    );
    await insertComments(client, 'SELECT $1::int AS blog_id, g FROM generate_series(1, $2::int) g', [
      rows[0].id,
      COMMENT_BLOG_COMMENTS,
    ]);
    return rows[0].id;
  });
  await db.query('VACUUM (ANALYZE) comments, comment_counts');
  log(`blog ${id}: ${COMMENT_BLOG_COMMENTS.toLocaleString('en')} comments in ${Date.now() - started} ms`);
  return id;
}

/**
 * The blog of revisions-first, owned by the bench's subject, written {@link REVISION_BLOG_WRITES} times after its create
 * (title and content each time), so that its revisions' triggers ran as they do for PUTs. Once per store.
 * @returns its id, or undefined in a store without revisions (an older release's).
 */
async function seedRevisionBlog(db) {
  if (!(await hasTable(db, 'blog_revisions'))) return undefined;
  const started = Date.now();
  const { rows } = await db.query(
    `INSERT INTO blogs (title, content, author, owner_sub, created_at, updated_at)
     VALUES ('Revised blog', 'A blog with many revisions.', 'Seeder', $1, $2, $2) RETURNING id`,
    [BENCH_SUB, '2019-06-02T00:00:00Z'],
  );
  const id = rows[0].id;
  for (let n = 1; n <= REVISION_BLOG_WRITES; n++) {
    await db.query(
      `UPDATE blogs SET title = $2, content = $3, updated_at = updated_at + interval '1 second', version = version + 1
       WHERE id = $1`,
      [id, `Revised blog ${n}`, `Revision ${n} of a blog with many revisions.`],
    );
  }
  await db.query('VACUUM (ANALYZE) blog_revisions');
  log(`blog ${id}: ${REVISION_BLOG_WRITES.toLocaleString('en')} revisions written in ${Date.now() - started} ms`);
  return id;
}

/**
 * `--comments N`: tops the comments of the blogs read-one reads (`readIds`) up to `target`, comment g on the blog
 * first + g mod their number, in batches; then vacuums as {@link seed} does. Not in a store without comments.
 */
async function seedSpreadComments({ db, readIds, commentBlog }, target) {
  if (commentBlog === undefined) return;
  const started = Date.now();
  const [first, last] = readIds;
  const count = async () =>
    Number(
      (await db.query('SELECT count(*) AS n FROM comments WHERE blog_id BETWEEN $1 AND $2', [first, last])).rows[0].n,
    );
  let done = await count();
  if (done >= target) return;
  log(`seeding ${done.toLocaleString('en')} → ${target.toLocaleString('en')} comments over blogs ${first}–${last}`);
  while (done < target) {
    const batch = Math.min(SEED_BATCH, target - done);
    // g from COMMENT_BLOG_COMMENTS on: none shares a created_at with the commented blog's comments.
    const from = done + COMMENT_BLOG_COMMENTS + 1;
    await inTransaction(db, (client) =>
      insertComments(
        client,
        'SELECT $1::int + g % ($2::int - $1::int + 1) AS blog_id, g FROM generate_series($3::int, $4::int) g',
        [first, last, from, from + batch - 1],
      ),
    );
    done += batch;
    log(
      `  seeded ${done.toLocaleString('en')} / ${target.toLocaleString('en')} comments (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  await db.query('VACUUM (ANALYZE) comments, comment_counts');
  await db.query('CHECKPOINT').catch((error) => log(`CHECKPOINT: ${error.message}`));
  log(`comments seeded and vacuumed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * The tags `tag-1` … `tag-1000` (`Tag 1` …), which seeded blogs name: a blog that is no draft may only name a
 * stored tag (its counter row refers to it). Once per store, and not in a store without tags (an older release's).
 */
async function seedTags(db) {
  if (!(await hasTable(db, 'tags'))) return;
  const { rowCount } = await db.query(
    `INSERT INTO tags (slug, name) SELECT 'tag-' || k, 'Tag ' || k FROM generate_series(1, $1::int) k
     ON CONFLICT (slug) DO NOTHING`,
    [TAGS],
  );
  log(`${rowCount.toLocaleString('en')} tags stored`);
}

/** The blogs the update scenario rewrites: owned by the bench token's subject. */
async function seedOwnBlogs(db) {
  const { rows } = await db.query(
    `INSERT INTO blogs (title, content, author, owner_sub) SELECT 'Bench own ' || g, 'To be updated', 'Bench', $1
     FROM generate_series(1, $2::int) g RETURNING id`,
    [BENCH_SUB, UPDATE_BLOGS],
  );
  return rows.map((row) => row.id);
}

async function warmUp(servers) {
  for (const server of servers) {
    for (const scenario of ['read-one', 'list-first']) {
      await runLoad({
        url: server.url,
        scenario,
        connections,
        duration: quick ? 1 : 2,
        token,
        ids: [1, 100],
        updateIds: [],
        deepOffset: 0,
      });
    }
  }
}

/**
 * CPU per second of every server and database process while nothing is asked of them: background
 * work (checkpointer, WAL sender and receiver, the service's replica lag checks) that the CPU per
 * request of a run includes, and that a model of many requests per second should count once.
 */
async function idleCpu(servers, meters) {
  const pids = { ...Object.fromEntries(servers.map((server) => [server.name, server.pid])), ...meters };
  const read = () => Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, treeCpuMs(pid)]));
  const before = read();
  await new Promise((resolve) => setTimeout(resolve, duration * 1000));
  const after = read();
  const idle = Object.fromEntries(
    Object.keys(pids).map((name) => [name, round((after[name] - before[name]) / duration, 1)]),
  );
  log(
    `idle CPU, ms per second: ${Object.entries(idle)
      .map(([name, ms]) => `${name} ${ms}`)
      .join(', ')}`,
  );
  return idle;
}

/**
 * One load run against `server`, sampling its RSS meanwhile, and the CPU that it and each of
 * `meters` (name → pid of a process tree: a postmaster, PgBouncer) used per request.
 */
async function measure(server, job, meters) {
  let peakKb = 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, rssKb(server.pid))), 100);
  try {
    const cpuBefore = cpuMs(server.pid);
    const metersBefore = Object.fromEntries(Object.entries(meters).map(([name, pid]) => [name, treeCpuMs(pid)]));
    // Through the cache: its counters, and the CPU of the service behind it (the misses).
    const countersBefore = server.cache && cacheCounters(server.cache);
    const machineBefore = machineCpu();
    const backendBefore = server.backend && cpuMs(server.backend.pid);
    const [loaded, companion, churn] = await Promise.all([
      runLoad({ ...job, url: server.url }),
      // search-storm's read-one load in a generator of its own: the searches' answers never delay its clock.
      job.scenario === 'search-storm' &&
        runLoad({
          ...job,
          url: server.url,
          scenario: 'read-one',
          connections: STORM_READ_CONNECTIONS,
          overallRate: STORM_READ_RATE,
        }),
      job.scenario === 'cache-churn' &&
        runScript('churn.mjs', {
          cacheUrl: server.url,
          serviceUrl: server.backend.url,
          token: job.token,
          ids: job.updateIds,
          duration: job.duration,
          ...CHURN,
        }),
    ]);
    const figures = companion
      ? { ...loaded, companion, generatorCpuMs: loaded.generatorCpuMs + companion.generatorCpuMs }
      : loaded;
    // search-storm's second load (read-one) counts as requests too, as do cache-churn's reads of the written blogs.
    const requests = figures.total + (figures.companion?.total ?? 0) + (churn ? churn.polls : 0);
    const perRequest = (ms) => Math.round((ms * 1000) / Math.max(requests, 1));
    // CPU time per request tells the servers' own cost apart even when the machine is busy.
    const cpuUsPerRequest = perRequest(cpuMs(server.pid) - cpuBefore);
    const dbCpuUsPerRequest = Object.fromEntries(
      Object.entries(meters).map(([name, pid]) => [name, perRequest(treeCpuMs(pid) - metersBefore[name])]),
    );
    const machineAfter = machineCpu();
    const counters = server.cache && cacheCounters(server.cache);
    const lookups = counters && counters.hits - countersBefore.hits + counters.misses - countersBefore.misses;
    return {
      ...figures,
      // How much of one core the load generator (one thread) used: near 1, it and not the server set the rate.
      generatorCpuShare: round(figures.generatorCpuMs / (job.duration * 1000)),
      // The share of all the machine's cores busy meanwhile (every process, the generator's and others' too).
      machineCpuBusy: round(
        1 - (machineAfter.idle - machineBefore.idle) / Math.max(machineAfter.total - machineBefore.total, 1),
      ),
      cpuUsPerRequest,
      dbCpuUsPerRequest,
      ...(counters && {
        hits: counters.hits - countersBefore.hits,
        misses: counters.misses - countersBefore.misses,
        passes: counters.passes - countersBefore.passes,
        hitRatio: round((counters.hits - countersBefore.hits) / Math.max(lookups, 1), 4),
        backendCpuUsPerRequest: perRequest(cpuMs(server.backend.pid) - backendBefore),
      }),
      ...(churn && { churn }),
      rssPeakMb: Math.round(Math.max(peakKb, rssKb(server.pid)) / 1024),
    };
  } finally {
    clearInterval(sampler);
  }
}

const runLoad = (job) => runScript('load.mjs', job);

/** Runs bench/`file` with the JSON `job` in a process of its own; resolves to the JSON it writes on stdout. */
function runScript(file, job) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'bench', file), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.add(child);
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('exit', (code) => {
      children.delete(child);
      if (code === 0) resolve(JSON.parse(out));
      else reject(new Error(`bench/${file} exited with ${code}`));
    });
  });
}

function procStatusKb(pid, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}
const rssKb = (pid) => procStatusKb(pid, 'VmRSS');
/**
 * CPU time the process has used, in ms: the time each of its threads ran, in ns (/proc/<pid>/task/<tid>/schedstat),
 * where the kernel keeps it; else user + system time in clock ticks of 10 ms (/proc/<pid>/stat).
 */
function cpuMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    }
    return ns / 1e6;
  } catch {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      return 0;
    }
  }
}
/** The machine's CPU time since boot, all cores, in clock ticks: in all, and idle (idle and iowait; /proc/stat). */
function machineCpu() {
  const ticks = readFileSync('/proc/stat', 'utf8').split('\n')[0].split(/\s+/).slice(1, 9).map(Number);
  return { total: ticks.reduce((a, b) => a + b, 0), idle: ticks[3] + ticks[4] };
}
/** The kernel's high-water mark of the process's resident set since it started, in MB. */
const peakRssMb = (pid) => Math.round(procStatusKb(pid, 'VmHWM') / 1024);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
/** One figure per server from its rounds: medians of rates and latencies, sums of failures, peak RSS. */
function combine(runs) {
  const pick = (key) => runs.map((run) => run[key]);
  const load = (key) => ({
    requestsPerSecond: median(pick(key).map((f) => f.requestsPerSecond)),
    total: pick(key).reduce((sum, f) => sum + f.total, 0),
    p50: median(pick(key).map((f) => f.p50)),
    p99: median(pick(key).map((f) => f.p99)),
    ...(pick(key)[0].p99Corrected !== undefined && { p99Corrected: median(pick(key).map((f) => f.p99Corrected)) }),
    non2xx: pick(key).reduce((sum, f) => sum + f.non2xx, 0),
    errors: pick(key).reduce((sum, f) => sum + f.errors, 0),
    timeouts: pick(key).reduce((sum, f) => sum + f.timeouts, 0),
  });
  return {
    ...(runs[0].companion && { companion: load('companion') }),
    requestsPerSecond: median(pick('requestsPerSecond')),
    total: pick('total').reduce((a, b) => a + b, 0),
    p50: median(pick('p50')),
    p99: median(pick('p99')),
    cpuUsPerRequest: median(pick('cpuUsPerRequest')),
    dbCpuUsPerRequest: Object.fromEntries(
      Object.keys(runs[0].dbCpuUsPerRequest).map((name) => [
        name,
        median(runs.map((run) => run.dbCpuUsPerRequest[name])),
      ]),
    ),
    bytesPerResponse: Math.round(median(pick('bytesPerResponse'))),
    non2xx: pick('non2xx').reduce((a, b) => a + b, 0),
    errors: pick('errors').reduce((a, b) => a + b, 0),
    timeouts: pick('timeouts').reduce((a, b) => a + b, 0),
    rssPeakMb: Math.max(...pick('rssPeakMb')),
    generatorCpuShare: median(pick('generatorCpuShare')),
    machineCpuBusy: median(pick('machineCpuBusy')),
    ...(runs[0].hitRatio !== undefined && {
      hitRatio: median(pick('hitRatio')),
      passes: pick('passes').reduce((a, b) => a + b, 0),
      backendCpuUsPerRequest: median(pick('backendCpuUsPerRequest')),
    }),
    ...(runs[0].churn && { churn: combineChurn(pick('churn')) }),
    rounds: runs,
  };
}

/** cache-churn's writer over its rounds: sums of counts, medians of rates and of p50s and p99s, the largest of maxima. */
function combineChurn(runs) {
  const sum = (key) => runs.reduce((total, run) => total + run[key], 0);
  const spread = (figure) => {
    const [p50, p99, max] = ['p50', 'p99', 'max'].map((key) =>
      runs.map((run) => run[figure][key]).filter((ms) => ms !== null),
    );
    return {
      p50: p50.length === 0 ? null : median(p50),
      p99: p99.length === 0 ? null : median(p99),
      max: max.length === 0 ? null : Math.max(...max),
    };
  };
  const stalenessMs = spread('stalenessMs');
  const figures = {
    writes: sum('writes'),
    writesPerSecond: median(runs.map((run) => run.writesPerSecond)),
    writeFailures: sum('writeFailures'),
    polls: sum('polls'),
    pollFailures: sum('pollFailures'),
    seen: sum('seen'),
    unseen: sum('unseen'),
    stalenessMs,
    readMs: spread('readMs'),
  };
  return { ...figures, ok: figures.unseen === 0 && figures.seen > 0 && stalenessMs.max <= CHURN.boundMs };
}

/** The cache's figures against the issue's targets: req/s ÷ the service's (same rounds), p99; cache-churn's bound. */
function cacheVerdict(cache, service) {
  if (cache.churn) return { maxStalenessMs: cache.churn.stalenessMs.max, stalenessOk: cache.churn.ok };
  const ratio = round(cache.requestsPerSecond / service.requestsPerSecond);
  // What a request costs every process but the load generator, straight and through the cache: on a machine whose
  // cores the generator shares, the requests a core serves each way.
  const direct = service.cpuUsPerRequest + dbCpu(service);
  const cached = cache.cpuUsPerRequest + cache.backendCpuUsPerRequest + dbCpu(cache);
  return {
    requestsPerSecond: ratio,
    cpuPerRequest: round(direct / Math.max(cached, 1)),
    ratioOk: ratio >= CACHE_TARGETS.ratio,
    p99Ok: cache.p99 <= CACHE_TARGETS.p99Ms,
  };
}

const ratios = (service, baseline) => ({
  requestsPerSecond: round(service.requestsPerSecond / baseline.requestsPerSecond),
  p50: round(service.p50 / Math.max(baseline.p50, 1)),
  p99: round(service.p99 / Math.max(baseline.p99, 1)),
});
/** The working tree's service ÷ the release's: req/s and CPU µs per request. */
const releaseRatios = (service, release) => ({
  requestsPerSecond: round(service.requestsPerSecond / release.requestsPerSecond),
  cpuUsPerRequest: round(service.cpuUsPerRequest / Math.max(release.cpuUsPerRequest, 1)),
});
const round = (value, digits = 2) => Number(value.toFixed(digits));
const dbCpu = (figures) => Object.values(figures.dbCpuUsPerRequest).reduce((a, b) => a + b, 0);
/** A topology's figures ÷ direct's: rate, p50, the service's CPU and the databases' (all meters) per request. */
const topologyRatios = (other, direct) => ({
  requestsPerSecond: round(other.requestsPerSecond / direct.requestsPerSecond),
  p50: round(other.p50 / Math.max(direct.p50, 1)),
  serviceCpu: round(other.cpuUsPerRequest / Math.max(direct.cpuUsPerRequest, 1)),
  primaryCpu: round((other.dbCpuUsPerRequest.primary ?? 0) / Math.max(direct.dbCpuUsPerRequest.primary ?? 0, 1)),
  dbCpu: round(dbCpu(other) / Math.max(dbCpu(direct), 1)),
});

/** Per scenario and server: rate, latency and CPU per request of the server and of each database process. */
function cpuTable(step, servers) {
  const any = Object.values(step.scenarios).flatMap((s) => servers.map(({ name }) => s[name]).filter(Boolean))[0];
  const meters = Object.keys(any.dbCpuUsPerRequest);
  const label = { primary: 'PG primary', replica: 'PG replica', pgbouncer: 'PgBouncer' };
  const lines = [
    'CPU per request (µs) of the server and of the database processes, all measured during each run; ratios ÷ `service` (direct), same run',
    '',
    `| scenario | server | req/s | p50 / p99 ms | RSS MB | server | ${meters.map((m) => label[m]).join(' | ')} | DB total | req/s ÷ service | server CPU ÷ service | DB CPU ÷ service |`,
    `|---|---|---:|---:|---:|---:|${meters.map(() => '---:|').join('')}---:|---:|---:|---:|`,
  ];
  for (const [name, s] of Object.entries(step.scenarios)) {
    for (const { name: who } of servers) {
      const f = s[who];
      if (f === undefined) continue;
      const r = s.topologyRatio?.[who];
      lines.push(
        `| ${name} | ${who} | ${Math.round(f.requestsPerSecond)} | ${f.p50} / ${f.p99} | ${f.rssPeakMb} | ${f.cpuUsPerRequest} | ` +
          `${meters.map((m) => f.dbCpuUsPerRequest[m]).join(' | ')} | ${dbCpu(f)} | ` +
          (r ? `${r.requestsPerSecond.toFixed(2)} | ${r.serviceCpu.toFixed(2)} | ${r.dbCpu.toFixed(2)} |` : '| | |'),
      );
    }
  }
  return lines.join('\n');
}

/** Service ÷ baseline per scenario; with a release (`--against`), also the service ÷ that release. */
function table(step, releaseName) {
  const against = releaseName ? ` ${releaseName.replace('release', 'svc ÷ release')} req/s | CPU µs/req |` : '';
  const lines = [
    `Blogs: ${step.rows.toLocaleString('en')} seeded · ${duration} s per run · ${rounds} round(s), medians · ${connections} connections · service peak RSS ${step.serviceRssPeakMb} MB · Node ${process.version}, service NODE_OPTIONS \`${FLAG_SETS[0]}\``,
    '',
    `| scenario | baseline req/s | service req/s | ratio | baseline p50 / p99 ms | service p50 / p99 ms | p99 ratio | CPU µs/req (base/svc) | bytes/response (base/svc) | non-2xx (base/svc) | errors (base/svc) | service RSS MB |${against}`,
    `|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${releaseName ? '---:|---:|' : ''}`,
  ];
  // cache-churn runs only through the cache: its figures are in cacheTable's.
  for (const [name, s] of Object.entries(step.scenarios).filter(([, s]) => s.baseline && s.service)) {
    const release = !releaseName
      ? ''
      : s.releaseRatio
        ? ` ${s.releaseRatio.requestsPerSecond.toFixed(2)} | ${s.releaseRatio.cpuUsPerRequest.toFixed(2)} |`
        : ' — | — |';
    lines.push(
      `| ${name} | ${Math.round(s.baseline.requestsPerSecond)} | ${Math.round(s.service.requestsPerSecond)} | ${s.ratio.requestsPerSecond.toFixed(2)} | ` +
        `${s.baseline.p50} / ${s.baseline.p99} | ${s.service.p50} / ${s.service.p99} | ${s.ratio.p99.toFixed(2)} | ` +
        `${s.baseline.cpuUsPerRequest} / ${s.service.cpuUsPerRequest} | ${s.baseline.bytesPerResponse} / ${s.service.bytesPerResponse} | ` +
        `${s.baseline.non2xx}/${s.service.non2xx} | ${s.baseline.errors + s.baseline.timeouts}/${s.service.errors + s.service.timeouts} | ${s.service.rssPeakMb} |${release}`,
    );
  }
  const { create, 'create-uncounted': uncounted } = step.scenarios;
  if (create && uncounted) {
    const share = create.service.requestsPerSecond / uncounted.service.requestsPerSecond;
    lines.push('', `Exact-total counter: service create req/s with it ÷ without it = ${share.toFixed(2)}`);
  }
  return lines.join('\n');
}

/** Each server's flags and the kernel's high-water mark of its resident set (VmHWM) over the step. */
function serverTable(step, servers) {
  const lines = ['| server | NODE_OPTIONS | peak RSS MB (VmHWM) |', '|---|---|---:|'];
  for (const { name, flags } of servers)
    lines.push(`| ${name} | ${flags ? `\`${flags}\`` : ''} | ${step.rssPeakMb[name]} |`);
  return lines.join('\n');
}

/** search-storm: the common-word searches and the read-one load beside them, each server's medians. */
function stormTable(s, servers) {
  const lines = [
    `search-storm: ${connections} connections of q=${COMMON_WORD} and, at the same time, read-one on ${STORM_READ_CONNECTIONS} connections at ${STORM_READ_RATE} req/s in all`,
    '',
    "read-one's p50 / p99: of its answers' own times; autocannon's correction for coordinated omission beside them (bench/load.mjs)",
    '',
    '| server | search req/s | search p50 / p99 ms | search non-2xx / errors | read-one req/s | read-one p50 / p99 ms | read-one p99 ms, corrected | read-one non-2xx / errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { name } of servers) {
    const f = s[name];
    if (f === undefined) continue;
    const c = f.companion;
    lines.push(
      `| ${name} | ${Math.round(f.requestsPerSecond)} | ${f.p50} / ${f.p99} | ${f.non2xx} / ${f.errors + f.timeouts} | ` +
        `${Math.round(c.requestsPerSecond)} | ${c.p50} / ${c.p99} | ${c.p99Corrected} | ${c.non2xx} / ${c.errors + c.timeouts} |`,
    );
  }
  return lines.join('\n');
}

/**
 * `--via-cache`: per cached scenario the cache's figures beside the service's of the same rounds, with the issue's
 * targets and the CPU per request (all but the generator's) straight ÷ through the cache; cache-churn's reads, writes, hit ratio and staleness; and whether the load generator was the limit.
 */
function cacheTable(step, server) {
  const pct = (ratio) => (ratio === undefined ? '—' : `${(ratio * 100).toFixed(1)}`);
  const mark = (ok) => (ok ? 'ok' : 'not ok');
  const share = (f) => (f ? f.generatorCpuShare.toFixed(2) : '—');
  // The load generator is one thread; beside it the cache, the service and PostgreSQL share the machine's cores.
  const saturated = (f) => f.generatorCpuShare >= 0.9 || f.machineCpuBusy >= 0.9;
  const lines = [
    `Through a shared cache: ${server.cache.version} (deploy/varnish/default.vcl) in front of \`service\`, ${cacheConnections} connections; ` +
      `targets: req/s ≥ ${CACHE_TARGETS.ratio}× the service's, p99 ≤ ${CACHE_TARGETS.p99Ms} ms`,
    '',
    `| scenario | service req/s | cache req/s | cache ÷ service | service p50 / p99 ms | cache p50 / p99 ms | hits % | varnishd CPU µs/req | service CPU µs/req behind it | CPU/req direct ÷ cached | generator CPU, cores (svc / cache) | machine busy % (svc / cache) | ≥ ${CACHE_TARGETS.ratio}× | p99 ≤ ${CACHE_TARGETS.p99Ms} ms |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
  ];
  const limited = [];
  for (const name of CACHED) {
    const s = step.scenarios[name];
    if (!s?.cache || !s.service) continue;
    const { cache, service, cacheVerdict: v } = s;
    if (saturated(cache)) limited.push(name);
    lines.push(
      `| ${name} | ${Math.round(service.requestsPerSecond)} | ${Math.round(cache.requestsPerSecond)} | ${v.requestsPerSecond.toFixed(2)} | ` +
        `${service.p50} / ${service.p99} | ${cache.p50} / ${cache.p99} | ${pct(cache.hitRatio)} | ${cache.cpuUsPerRequest} | ` +
        `${cache.backendCpuUsPerRequest} | ${v.cpuPerRequest.toFixed(1)} | ${share(service)} / ${share(cache)} | ${pct(service.machineCpuBusy)} / ${pct(cache.machineCpuBusy)} | ${mark(v.ratioOk)} | ${mark(v.p99Ok)} |`,
    );
  }
  const churn = step.scenarios['cache-churn']?.cache;
  if (churn) {
    const c = churn.churn;
    if (saturated(churn)) limited.push('cache-churn');
    lines.push(
      '',
      `cache-churn: reads through the cache (45 % read-one, 45 % the written blogs, 10 % list-first) while one client ` +
        `PATCHes those blogs ${CHURN.writesPerSecond} times a second through the service; staleness: a write's 2xx to the ` +
        `first read through the cache showing it (read every ${CHURN.pollMs} ms), bound ${CHURN.boundMs / 1000} s`,
      '',
      `| reads req/s | reads p50 / p99 ms | hits % | writes (per s) | write / read failures | staleness p50 / p99 / max ms | of which the showing read, p99 / max ms | unseen | ≤ ${CHURN.boundMs / 1000} s |`,
      '|---:|---:|---:|---:|---:|---:|---:|---:|---|',
      `| ${Math.round(churn.requestsPerSecond)} | ${churn.p50} / ${churn.p99} | ${pct(churn.hitRatio)} | ${c.writes} (${c.writesPerSecond}) | ` +
        `${c.writeFailures} / ${c.pollFailures} | ${c.stalenessMs.p50} / ${c.stalenessMs.p99} / ${c.stalenessMs.max} | ${c.readMs.p99} / ${c.readMs.max} | ${c.unseen} | ${mark(c.ok)} |`,
    );
  }
  if (limited.length > 0) {
    lines.push(
      '',
      `In the cache's runs of ${limited.join(', ')} the load generator (one thread) used ≥ 0.9 of a core or the ` +
        "machine's cores were ≥ 90 % busy: there the cache's req/s is this machine's limit with the generator on it, a " +
        'lower bound of what the cache serves; CPU/req direct ÷ cached compares the work per request instead.',
    );
  }
  return lines.join('\n');
}

function growthTable(steps) {
  const [first] = steps;
  const lines = [
    `Growth of the service's p50 from ${first.rows.toLocaleString('en')} blogs`,
    '',
    `| scenario | ${steps.map((s) => `p50 ms at ${s.rows.toLocaleString('en')}`).join(' | ')} | ${steps
      .slice(1)
      .map((s) => `× at ${s.rows.toLocaleString('en')}`)
      .join(' | ')} |`,
    `|---|${steps.map(() => '---:').join('|')}|${steps
      .slice(1)
      .map(() => '---:')
      .join('|')}|`,
  ];
  for (const name of Object.keys(first.scenarios).filter((name) => first.scenarios[name].service)) {
    const p50s = steps.map((s) => s.scenarios[name].service.p50);
    lines.push(
      `| ${name} | ${p50s.join(' | ')} | ${p50s
        .slice(1)
        .map((p) => (p / Math.max(p50s[0], 1)).toFixed(2))
        .join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

function machine() {
  return {
    node: process.version,
    serviceNodeOptions: FLAG_SETS[0],
    cpus: availableParallelism(),
    platform: `${process.platform}-${process.arch}`,
  };
}

let stopping = false;
let stopped;
/** Stops every child and runs the cleanups, once however often it is called (a signal, then main's end). */
const stop = () => (stopped ??= stopEverything());
async function stopEverything() {
  stopping = true;
  const exits = [...children].map((child) => new Promise((resolve) => child.once('exit', resolve)));
  for (const child of children) child.kill('SIGTERM');
  await Promise.race([Promise.all(exits), new Promise((resolve) => setTimeout(resolve, 15_000).unref())]);
  for (const child of children) child.kill('SIGKILL');
  for (const cleanup of cleanups) await cleanup().catch((error) => log(`cleanup: ${error.message}`));
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    void stop().then(() => process.exit(130));
  });
}

/** The check's scenarios over their limit without the release, which {@link checkBesideRelease} runs again. */
let checkAgain;
/** The check's throughput half: its step (bench/check.mjs, THROUGHPUT_CHECK), when it ran. */
let throughputStep;

/**
 * `--check --against <the budget's release> --scenarios <names>`, in a process of its own after this one has stopped
 * its servers and dropped its databases. @returns its exit code
 */
function checkBesideRelease(names) {
  const { ref } = budget.release;
  log(`over the limit: ${names.join(', ')}; again beside release ${ref}, which decides`);
  const self = fileURLToPath(import.meta.url);
  const args = [self, '--check', '--only', 'cpu', '--no-build', '--against', ref, '--scenarios', names.join(',')];
  return spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' }).status ?? 1;
}

main()
  .catch((error) => {
    log(error.stack ?? String(error));
    process.exitCode = 1;
  })
  .finally(stop)
  .then(() => {
    if (checkAgain && process.exitCode !== 1) process.exitCode = checkBesideRelease(checkAgain);
  });

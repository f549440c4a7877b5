// One load run of the benchmark, in its own process so the load generator never shares an event
// loop with the server it measures. Reads a JSON job from argv[2], runs autocannon, writes the
// figures as one JSON line on stdout.
//
// Job: { url, scenario, connections, duration, token, ids: [min, max], updateIds: number[],
//        deepOffset, largeOffset: number, listAuthor, commonWord, rareWord: string, deepCursor: string,
//        deleteIds: [first, last], overallRate?: number (req/s in all, else as fast as answered),
//        commentBlog: number, commentCursor: string, revisionBlog: number,
//        amount?: number (that many requests on one connection instead of `duration`: a probe) }
// list-tag draws its tag per request from bench/tags.mjs's Zipf weights; read-slug reads `blog-<id>`, ids as read-one's.
// search-storm runs search-common on `connections`; bench.mjs runs its read-one load beside it in a process of its own.
// cache-churn's reads (through the cache; bench/churn.mjs writes meanwhile): 45 % read-one, 45 % a blog of `updateIds`
// (the ones written), 10 % list-first. `generatorCpuMs`: this process's CPU time during the load, to tell when the generator is the limit.
import autocannon from 'autocannon';
import { spread } from './spread.mjs';
import { tagSlug, zipfTag } from './tags.mjs';

const job = JSON.parse(process.argv[2]);
const { scenario, token, ids, updateIds, deepOffset, largeOffset, deleteIds } = job;
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const randomId = () => ids[0] + Math.floor(Math.random() * (ids[1] - ids[0] + 1));
let sequence = 0;
// Titles unique across runs: each run starts its sequence again, and a title another blog's slug was made from takes
// a suffix (create-same-title's path, not the common one). They end in a number, as "Weekly notes 12" does: each slug
// `bench-post-<run>-<n>` is a suffix of one base, which must cost distinct titles no shared lock.
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;
// Each delete takes the next of the blogs seeded for this run: none is deleted twice.
let nextDelete = deleteIds?.[0] ?? 0;
/** The title of create-same-title. */
const SAME_TITLE = 'Weekly update';
const blogBody = (title) => {
  sequence += 1;
  return JSON.stringify({
    title: title ?? `Bench post ${RUN} ${sequence}`,
    content: `Body of bench post ${sequence}. `.repeat(20),
    author: 'Bench',
  });
};

/**
 * A search's client: one of as many addresses as connections (X-Forwarded-For, which the bench's services trust), so
 * that the searches come from many clients, each with its share of the service's slow lane, as a storm of users would.
 */
const searcher = () => {
  const n = Math.floor(Math.random() * job.connections);
  // 198.18.0.0/15: the addresses of benchmarks (RFC 2544).
  return { 'x-forwarded-for': `198.18.${n >> 8}.${n % 256}` };
};

/** Each scenario as an autocannon request whose `setupRequest` picks the concrete request. */
const requests = {
  'read-one': () => ({ method: 'GET', path: `/api/v1/blogs/${randomId()}` }),
  // Seeded blogs have the slug `blog-<id>`.
  'read-slug': () => ({ method: 'GET', path: `/api/v1/blogs/slug/blog-${randomId()}` }),
  'list-tag': () => ({ method: 'GET', path: `/api/v1/blogs?tag=${tagSlug(zipfTag(Math.random()))}&limit=10&offset=0` }),
  tags: () => ({ method: 'GET', path: '/api/v1/tags?limit=10' }),
  'list-first': () => ({ method: 'GET', path: '/api/v1/blogs?limit=10&offset=0' }),
  'feed-atom': () => ({ method: 'GET', path: '/api/v1/feeds/blogs.atom' }),
  'sitemap-file': () => ({ method: 'GET', path: '/api/v1/sitemaps/blogs-1.xml' }),
  'list-deep': () => ({ method: 'GET', path: `/api/v1/blogs?limit=10&offset=${deepOffset}` }),
  'list-large': () => ({ method: 'GET', path: `/api/v1/blogs?limit=100&offset=${largeOffset}` }),
  'list-large-compressed': () => ({
    ...requests['list-large'](),
    headers: { 'accept-encoding': 'gzip, br' },
  }),
  create: () => ({ method: 'POST', path: '/api/v1/blogs', headers: auth, body: blogBody() }),
  // Distinct titles ending in a number, "<words> <n>": one base per run, each create a suffix of its own.
  'create-numbered': () => ({
    method: 'POST',
    path: '/api/v1/blogs',
    headers: auth,
    body: blogBody(`Weekly notes ${RUN} ${sequence + 1}`),
  }),
  // One title for every create of every run: each takes the lowest free suffix of a base that thousands hold.
  'create-same-title': () => ({ method: 'POST', path: '/api/v1/blogs', headers: auth, body: blogBody(SAME_TITLE) }),
  // The same requests; the bench disables the counter trigger around this scenario.
  'create-uncounted': () => requests.create(),
  update: () => ({
    method: 'PUT',
    path: `/api/v1/blogs/${updateIds[Math.floor(Math.random() * updateIds.length)]}`,
    headers: auth,
    body: blogBody(),
  }),
  'list-author': () => ({ method: 'GET', path: `/api/v1/blogs?limit=10&author=${encodeURIComponent(job.listAuthor)}` }),
  'search-rare': () => ({ method: 'GET', path: `/api/v1/blogs?limit=10&q=${job.rareWord}`, headers: searcher() }),
  'search-common': () => ({ method: 'GET', path: `/api/v1/blogs?limit=10&q=${job.commonWord}`, headers: searcher() }),
  'cursor-deep': () => ({ method: 'GET', path: `/api/v1/blogs?limit=10&cursor=${encodeURIComponent(job.deepCursor)}` }),
  patch: () => {
    sequence += 1;
    return {
      method: 'PATCH',
      path: `/api/v1/blogs/${updateIds[Math.floor(Math.random() * updateIds.length)]}`,
      headers: { ...auth, 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ title: `Bench patch ${sequence}` }),
    };
  },
  delete: () => {
    // Past the last one, the same id again: its 404s show in non-2xx that the run needed more blogs.
    const id = Math.min(nextDelete, deleteIds[1]);
    nextDelete += 1;
    return { method: 'DELETE', path: `/api/v1/blogs/${id}`, headers: { authorization: auth.authorization } };
  },
  'comments-first': () => ({ method: 'GET', path: `/api/v1/blogs/${job.commentBlog}/comments?limit=10` }),
  'comments-cursor': () => ({
    method: 'GET',
    path: `/api/v1/blogs/${job.commentBlog}/comments?limit=10&cursor=${encodeURIComponent(job.commentCursor)}`,
  }),
  // The newest revisions of the bench's own blog with many: a token is required, its owner's.
  'revisions-first': () => ({
    method: 'GET',
    path: `/api/v1/blogs/${job.revisionBlog}/revisions?limit=10`,
    headers: { authorization: auth.authorization },
  }),
  // A comment on one of the blogs read-one reads (all live), so creates spread over their counters.
  'comment-create': () => {
    sequence += 1;
    return {
      method: 'POST',
      path: `/api/v1/blogs/${randomId()}/comments`,
      headers: auth,
      body: JSON.stringify({ author: 'Bench', body: `Comment ${RUN} ${sequence}: well said, thanks.` }),
    };
  },
  'cache-churn': () => {
    const roll = Math.random();
    if (roll < 0.45) return requests['read-one']();
    if (roll < 0.9)
      return { method: 'GET', path: `/api/v1/blogs/${updateIds[Math.floor(Math.random() * updateIds.length)]}` };
    return requests['list-first']();
  },
  mixed: () => {
    const roll = Math.random();
    if (roll < 0.6) return requests['read-one']();
    if (roll < 0.9) return requests['list-first']();
    return requests.create();
  },
};

/**
 * One autocannon run of `pick`'s requests, summed up. At an `overallRate`, p50 and p99 are those of the 2xx answers'
 * own times: autocannon's correction for coordinated omission takes ceil(1 / rate) ms as the interval between requests
 * (1 ms at 20 req/s a connection, not 50) and records an answer of n ms n times, while its limiter sends each second's
 * budget at once, on no schedule to fall behind; its corrected p99 is `p99Corrected`.
 */
async function load(pick, connections, extra = {}) {
  const run = autocannon({
    url: job.url,
    ...(job.amount ? { amount: job.amount, connections: 1 } : { duration: job.duration, connections }),
    requests: [{ setupRequest: (request) => ({ ...request, headers: {}, body: undefined, ...pick() }) }],
    ...extra,
  });
  const times = [];
  if (extra.overallRate) run.on('response', (_client, status, _bytes, ms) => status < 300 && times.push(ms));
  const result = await run;
  const own = extra.overallRate && spread(times, 1);
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    ...(extra.overallRate
      ? { p50: own.p50, p99: own.p99, p99Corrected: result.latency.p99 }
      : { p50: result.latency.p50, p99: result.latency.p99 }),
    bytesPerResponse: result.throughput.total / Math.max(1, result.requests.total),
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: result.statusCodeStats,
  };
}

let figures;
const cpuStart = process.cpuUsage();
if (scenario === 'search-storm') {
  // Expensive searches queue in the service's slow lane for longer than autocannon's default 10 s timeout.
  figures = await load(requests['search-common'], job.connections, { timeout: 60 });
} else {
  if (!requests[scenario]) throw new Error(`unknown scenario ${scenario}`);
  figures = await load(requests[scenario], job.connections, job.overallRate ? { overallRate: job.overallRate } : {});
}
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(`${JSON.stringify({ ...figures, generatorCpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`);

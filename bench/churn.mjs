// cache-churn's writer, in its own process beside the load generator (bench/load.mjs reads through the cache
// meanwhile): `writesPerSecond` PATCHes of the blogs `ids` (in turn) straight to the service, for `duration` seconds,
// each titled `Churn <run> <n>`. After each write's 2xx it reads that blog through the cache every `pollMs` until the
// title shows write n or a later one of the same blog; the time from the 2xx to that read's answer is the write's
// staleness; that read's own time (sent to answered) is its `readMs`, the part a busy service adds by answering the
// cache's miss. A write not seen after `giveUpMs` counts as unseen. Writes one JSON line of figures on stdout.
//
// Job: { cacheUrl, serviceUrl, token, ids: number[], duration, writesPerSecond, pollMs, giveUpMs }
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { spread } from './spread.mjs';

const job = JSON.parse(process.argv[2]);
const { ids, duration, writesPerSecond, pollMs, giveUpMs } = job;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const RUN = `${process.pid.toString(36)}${Date.now().toString(36)}`;
const TITLE = new RegExp(`^Churn ${RUN} (\\d+)$`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** One HTTP request; resolves to its status and body (text). */
function send(base, method, path, headers = {}, body = undefined) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { method, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const staleness = [];
const readMs = [];
let written = 0;
let writeFailures = 0;
let polls = 0;
let pollFailures = 0;
let unseen = 0;

/** Reads blog `id` through the cache until it shows write `n` or a later one of it; records the time since `at`. */
async function watch(id, n, at) {
  for (;;) {
    const sent = performance.now();
    polls += 1;
    try {
      const { status, text } = await send(job.cacheUrl, 'GET', `/api/v1/blogs/${id}`);
      if (status !== 200) pollFailures += 1;
      else {
        const shown = TITLE.exec(JSON.parse(text).title ?? '');
        if (shown && Number(shown[1]) >= n) {
          staleness.push(performance.now() - at);
          readMs.push(performance.now() - sent);
          return;
        }
      }
    } catch {
      pollFailures += 1;
    }
    if (performance.now() - at > giveUpMs) {
      unseen += 1;
      return;
    }
    await sleep(pollMs - (performance.now() - sent));
  }
}

/** Write `n` (of blog ids[n mod length]); its watch when it was answered 2xx. */
async function write(n) {
  const id = ids[n % ids.length];
  const body = JSON.stringify({ title: `Churn ${RUN} ${n}` });
  try {
    const { status } = await send(
      job.serviceUrl,
      'PATCH',
      `/api/v1/blogs/${id}`,
      { authorization: `Bearer ${job.token}`, 'content-type': 'application/merge-patch+json' },
      body,
    );
    if (status < 200 || status > 299) {
      writeFailures += 1;
      return;
    }
  } catch {
    writeFailures += 1;
    return;
  }
  written += 1;
  await watch(id, n, performance.now());
}

// On a schedule rather than one after another: a slow write does not slow the rate.
const started = performance.now();
const interval = 1000 / writesPerSecond;
const pending = [];
for (let n = 0; n < duration * writesPerSecond; n += 1) {
  await sleep(started + n * interval - performance.now());
  pending.push(write(n));
}
const writeSeconds = (performance.now() - started) / 1000;
await Promise.all(pending);
agent.destroy();

process.stdout.write(
  `${JSON.stringify({
    writes: written,
    writesPerSecond: Number((written / writeSeconds).toFixed(1)),
    writeFailures,
    polls,
    pollFailures,
    seen: staleness.length,
    unseen,
    stalenessMs: spread(staleness),
    readMs: spread(readMs),
  })}\n`,
);

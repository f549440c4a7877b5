// Where a read-one's time goes in the service, for pricing it beside a load (never in the product): preloaded with
//   npm run bench -- --scenarios search-storm --node-options "<flags> --require ./bench/read-delay.cjs"
// it appends a line every 10 s to bench/results/read-delay-<pid>.log (or READ_DELAY_LOG): the event loop's delay
// (perf_hooks.monitorEventLoopDelay), the garbage collector's pauses, and per read-one (`GET /blogs/:id`) its time in
// the service (the `request` event to `finish`), its wait for a pooled connection and its statement's round trip
// (`blogs.find-by-id`, sent to answered); the searches' (`q=`) time in the service and wait for a connection beside.
// Percentiles in ms over the 10 s; `n` samples.
'use strict';
const { appendFileSync } = require('node:fs');
const http = require('node:http');
const { join } = require('node:path');
const { AsyncLocalStorage } = require('node:async_hooks');
const { monitorEventLoopDelay, performance, PerformanceObserver } = require('node:perf_hooks');

const out = process.env.READ_DELAY_LOG ?? join(__dirname, 'results', `read-delay-${process.pid}.log`);
const kinds = new AsyncLocalStorage();
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const samples = { gc: [], readService: [], readPoolWait: [], readStatement: [], searchService: [], searchPoolWait: [] };

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const summary = (values) => {
  if (values.length === 0) return 'n=0';
  const sorted = [...values].sort((a, b) => a - b);
  const ms = (p) => percentile(sorted, p).toFixed(1);
  return `n=${values.length} p50=${ms(0.5)} p99=${ms(0.99)} max=${ms(1)}`;
};
setInterval(() => {
  const delay = (p) => (loop.percentile(p) / 1e6).toFixed(1);
  const parts = Object.entries(samples).map(([name, values]) => `${name} ${summary(values)}`);
  appendFileSync(
    out,
    `${new Date().toISOString()} loopDelay p50=${delay(50)} p99=${delay(99)} max=${(loop.max / 1e6).toFixed(1)} | ` +
      `${parts.join(' | ')}\n`,
  );
  loop.reset();
  for (const values of Object.values(samples)) values.length = 0;
}, 10_000).unref();
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) samples.gc.push(entry.duration);
}).observe({ entryTypes: ['gc'] });

// Each request's kind, for the waits its asynchronous work makes.
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, request, response) {
  if (event !== 'request') return emit.apply(this, arguments);
  const start = performance.now();
  const kind = /^\/(api\/v1\/)?blogs\/\d+$/.test(request.url) ? 'read' : /[?&]q=/.test(request.url) ? 'search' : '';
  response.once('finish', () => samples[`${kind}Service`]?.push(performance.now() - start));
  return kinds.run(kind, () => emit.apply(this, arguments));
};

const pg = require(require.resolve('pg', { paths: [process.cwd()] }));
const pool = Object.getPrototypeOf(pg.Pool.prototype);
const connect = pool.connect;
pool.connect = function (callback) {
  const waits = samples[`${kinds.getStore()}PoolWait`];
  const start = performance.now();
  const taken = () => waits?.push(performance.now() - start);
  if (typeof callback === 'function') {
    return connect.call(this, (error, client, release) => (taken(), callback(error, client, release)));
  }
  const leased = connect.call(this);
  leased.then(taken, taken);
  return leased;
};
const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config) {
  const result = query.apply(this, arguments);
  if (config?.name === 'blogs.find-by-id' && typeof result?.then === 'function') {
    const start = performance.now();
    result.then(
      () => samples.readStatement.push(performance.now() - start),
      () => undefined,
    );
  }
  return result;
};

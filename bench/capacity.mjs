// `node bench/capacity.mjs <results.json> [options]`: the capacity model of docs/capacity.md from one
// bench run made with `--topology direct,pgbouncer,replica`. Prints the per-request CPU of the mix
// and the table "pods, PgBouncer server connections, replicas → req/s".
//
// Options (the model's assumptions; defaults as in docs/capacity.md):
//   --pod-cores 1  --db-cores 8  --target 0.7  --max-connections 100  --reserved 10
//   --pool 10 (the service's connections per pod and database)  --bouncer-pool 20 (default_pool_size)
//   --hold-extra 200 (µs a server connection is held per statement beyond PostgreSQL's CPU)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: o, positionals } = parseArgs({
  allowPositionals: true,
  options: Object.fromEntries(
    Object.entries({
      'pod-cores': 1,
      'db-cores': 8,
      target: 0.7,
      'max-connections': 100,
      reserved: 10,
      pool: 10,
      'bouncer-pool': 20,
      'hold-extra': 200,
    }).map(([name, value]) => [name, { type: 'string', default: String(value) }]),
  ),
});
const a = Object.fromEntries(Object.entries(o).map(([name, value]) => [name, Number(value)]));
if (positionals.length !== 1) throw new Error('usage: node bench/capacity.mjs <results.json> [options]');

/** The 90 % read / 10 % write mix: the scenarios and their shares of the requests. */
const MIX = {
  'read-one': 0.5,
  'list-first': 0.2,
  'list-author': 0.1,
  'search-rare': 0.05,
  'cursor-deep': 0.05,
  create: 0.05,
  update: 0.05,
};
const WRITES = new Set(['create', 'update']);
const SIZES = [1, 2, 5, 10, 20, 50, 100];

const results = JSON.parse(readFileSync(positionals[0], 'utf8'));
const step = results.steps.at(-1);
for (const name of Object.keys(MIX)) {
  for (const server of ['service', 'service-pgbouncer', 'service-replica']) {
    if (!step.scenarios[name]?.[server]) throw new Error(`${positionals[0]}: no ${name} on ${server}`);
  }
}
/**
 * A server's figures in a scenario, the database processes' CPU per request without their idle
 * CPU (the bench's idleCpuMsPerSecond): background work is per second, not per request.
 */
const f = (name, server) => {
  const figures = step.scenarios[name][server];
  const idle = step.idleCpuMsPerSecond ?? {};
  const busy = Object.entries(figures.dbCpuUsPerRequest).map(([meter, us]) => [
    meter,
    Math.max(0, us - ((idle[meter] ?? 0) * 1000) / figures.requestsPerSecond),
  ]);
  return { ...figures, dbCpuUsPerRequest: Object.fromEntries(busy) };
};
/** Σ share × figure over the mix's scenarios, `pick(scenario)` giving the figure in µs. */
const mix = (pick, only = () => true) =>
  Object.entries(MIX)
    .filter(([name]) => only(name))
    .reduce((sum, [name, share]) => sum + share * pick(name), 0);
const isRead = (name) => !WRITES.has(name);
const isWrite = (name) => WRITES.has(name);

// µs of CPU per request of the mix, each where it is spent.
const cost = {
  // The pods: direct, behind PgBouncer, and with the reads on replicas (the writes then behind PgBouncer).
  podDirect: mix((n) => f(n, 'service').cpuUsPerRequest),
  podBouncer: mix((n) => f(n, 'service-pgbouncer').cpuUsPerRequest),
  podScaled: mix((n) => f(n, isRead(n) ? 'service-replica' : 'service-pgbouncer').cpuUsPerRequest),
  // The primary: everything when alone; with replicas, the writes. Reads on a replica leave the
  // primary only the lag checks, 4 a second per pod: what the primary's meter shows in those runs
  // beyond them is its background, which moves by some 30 ms a second from run to run.
  primaryAlone: mix((n) => f(n, 'service').dbCpuUsPerRequest.primary),
  primaryWrites: mix((n) => f(n, 'service').dbCpuUsPerRequest.primary, isWrite),
  primaryReadsOnReplica: mix((n) => f(n, 'service-replica').dbCpuUsPerRequest.primary, isRead),
  // A replica: the reads it is given, and the replay of every write (each replica replays all of them).
  replicaReads: mix((n) => f(n, 'service-replica').dbCpuUsPerRequest.replica, isRead),
  replicaReplay: mix((n) => f(n, 'service').dbCpuUsPerRequest.replica, isWrite),
  // PgBouncer, per request that passes it (every one when each database server has its own).
  bouncer: mix((n) => f(n, 'service-pgbouncer').dbCpuUsPerRequest.pgbouncer),
  bouncerReads: mix((n) => f(n, 'service-pgbouncer').dbCpuUsPerRequest.pgbouncer, isRead),
};

const budget = (cores) => cores * a.target * 1e6; // µs of CPU per second the target allows
const usable = a['max-connections'] - a.reserved;
const round = (value) => (value >= 1000 ? Math.round(value / 100) * 100 : Math.round(value / 10) * 10);

/**
 * What `pods` pods can do, and with what: "alone" is one primary and no PgBouncer; the plan adds
 * PgBouncer in front of each database server once the pods' connections pass what PostgreSQL has,
 * and as many replicas as the pods' rate needs once the primary alone cannot serve it.
 */
function plan(pods) {
  const podBudget = pods * budget(a['pod-cores']);
  const db = budget(a['db-cores']);
  const clients = pods * a.pool;
  const alone = [
    ['pods’ CPU', podBudget / cost.podDirect],
    ['primary CPU (reads and writes)', db / cost.primaryAlone],
  ].sort((x, y) => x[1] - y[1]);
  const bouncer = clients > usable;
  let wanted = podBudget / (bouncer ? cost.podBouncer : cost.podDirect);
  let replicas = 0;
  if (db / cost.primaryAlone < wanted) {
    wanted = podBudget / cost.podScaled;
    replicas = 1;
    // Each replica replays every write: past the point where replay alone fills one, more do not help.
    while (replicas < 64 && db < (wanted * cost.replicaReads) / replicas + wanted * cost.replicaReplay) replicas += 1;
  }
  // A server connection behind PgBouncer is held for PostgreSQL's time plus the round trips.
  const holdPrimary = (replicas ? cost.primaryWrites : cost.primaryAlone) + a['hold-extra'] * (replicas ? 0.1 : 1);
  const holdReplicas = cost.replicaReads + a['hold-extra'] * 0.9;
  const limits = [
    ['pods’ CPU', wanted],
    replicas
      ? ['primary CPU (writes)', db / cost.primaryWrites]
      : ['primary CPU (reads and writes)', db / cost.primaryAlone],
    ...(replicas ? [[`${replicas} replica(s)’ CPU`, db / (cost.replicaReads / replicas + cost.replicaReplay)]] : []),
    ...(replicas ? [['replay of the writes on each replica', db / cost.replicaReplay]] : []),
    ...(bouncer
      ? [
          [`${a['bouncer-pool']} server connections on the primary`, (a['bouncer-pool'] * 1e6) / holdPrimary],
          ...(replicas
            ? [
                [
                  `${a['bouncer-pool']} server connections per replica`,
                  (replicas * a['bouncer-pool'] * 1e6) / holdReplicas,
                ],
              ]
            : []),
        ]
      : [[`${clients} of ${usable} connections`, clients <= usable ? Infinity : 0]]),
  ].sort((x, y) => x[1] - y[1]);
  const rate = limits[0][1];
  return {
    pods,
    aloneRate: clients > usable ? undefined : alone[0][1],
    aloneNote: clients > usable ? `connections: ${clients} > ${usable}` : alone[0][0],
    serverConnections: bouncer
      ? `PgBouncer: ${a['bouncer-pool']} per server (${clients} clients)`
      : `${clients} direct${replicas ? ' per server' : ''}`,
    replicas,
    rate,
    first: limits[0][0],
    next: Number.isFinite(limits[1][1]) ? `${limits[1][0]} at ${round(limits[1][1]).toLocaleString('en')}` : '',
    // PgBouncer runs on one core: processes in front of the busiest server, a replica when there are
    // some (each process has a pool of server connections of its own).
    bouncers: bouncer ? Math.ceil((rate * (replicas ? cost.bouncerReads / replicas : cost.bouncer)) / budget(1)) : 0,
  };
}

const us = (value) => Math.round(value);
process.stdout.write(
  [
    `Results: ${positionals[0]} (${step.rows.toLocaleString('en')} blogs)`,
    `Mix: ${Object.entries(MIX)
      .map(([name, share]) => `${name} ${share * 100} %`)
      .join(', ')}`,
    '',
    '| µs of CPU per request of the mix | |',
    '|---|---:|',
    `| service, direct | ${us(cost.podDirect)} |`,
    `| service, behind PgBouncer | ${us(cost.podBouncer)} |`,
    `| service, reads on a replica, writes through PgBouncer | ${us(cost.podScaled)} |`,
    `| primary, all reads and writes | ${us(cost.primaryAlone)} |`,
    `| primary, of which the writes | ${us(cost.primaryWrites)} |`,
    `| primary during the reads on a replica (its background; not counted) | ${us(cost.primaryReadsOnReplica)} |`,
    `| replicas, the reads (shared among them) | ${us(cost.replicaReads)} |`,
    `| each replica, replaying the writes | ${us(cost.replicaReplay)} |`,
    `| PgBouncer | ${us(cost.bouncer)} |`,
    '',
    `Assumptions: ${a['pod-cores']} vCPU per pod, ${a['db-cores']} vCPU per database server, ${a.target * 100} % target utilisation, ` +
      `max_connections ${a['max-connections']} (${a.reserved} kept for administration and migrations), ${a.pool} connections per pod and database, ` +
      `default_pool_size ${a['bouncer-pool']}.`,
    '',
    'Where each limit lies, in requests per second of the mix (and pods at the direct / scaled cost):',
    '',
    ...[
      ['one pod', budget(a['pod-cores']) / cost.podDirect],
      [
        `direct connections (${a.pool} per pod, ${usable} usable)`,
        Math.floor(usable / a.pool) * (budget(a['pod-cores']) / cost.podDirect),
      ],
      ['the primary, reads and writes', budget(a['db-cores']) / cost.primaryAlone],
      ['the primary, writes only (reads on replicas)', budget(a['db-cores']) / cost.primaryWrites],
      ['one replica (its reads and the replay)', budget(a['db-cores']) / (cost.replicaReads + cost.replicaReplay)],
      ['one PgBouncer process (one core)', budget(1) / cost.bouncer],
    ].map(
      ([what, rate]) =>
        `- ${what}: ${round(rate).toLocaleString('en')} req/s (${(rate / (budget(a['pod-cores']) / cost.podDirect)).toFixed(1)} / ${(rate / (budget(a['pod-cores']) / cost.podScaled)).toFixed(1)} pods)`,
    ),
    '',
    '| pods | alone: req/s | alone: first limit | connections | replicas | req/s (90 % reads) | first bottleneck | next limit | PgBouncer processes per server (the busiest) |',
    '|---:|---:|---|---|---:|---:|---|---|---:|',
    ...SIZES.map(plan).map(
      (p) =>
        `| ${p.pods} | ${p.aloneRate === undefined ? '–' : round(p.aloneRate).toLocaleString('en')} | ${p.aloneNote} | ${p.serverConnections} | ${p.replicas} | ` +
        `${round(p.rate).toLocaleString('en')} | ${p.first} | ${p.next} | ${p.bouncers || '–'} |`,
    ),
    '',
  ].join('\n'),
);

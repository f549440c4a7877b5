// `npm run bench -- --check`: the CI guard. A short run of the scenarios of bench/budget.json, then
// per scenario r = service CPU µs per request ÷ baseline CPU µs per request, compared with the
// committed budget: r above budget × tolerance fails the check. Each round gives one ratio, from
// the baseline's run and the service's right after it, so a change in the machine's other load
// between rounds cancels out; r is the median of the rounds' ratios. With `release` in the budget, a
// scenario above its limit runs again in a check of its own with that commit's build beside the service,
// and still passes when the service's CPU per request is within `release.tolerance` of the release's in
// that run, since then the machine, not the change, moved the ratio (a machine whose system calls cost
// more raises every server's ratio to the framework-free baseline alike). A scenario with `of` is bounded
// by another scenario of the same run instead: its service and database CPU per request ÷ that one's.
//
// Then the throughput half (`throughput` in the budget): CPU per request on 2 connections does not see a lock that
// makes writers wait on one another, which costs no CPU. The write scenarios named there run on 50 connections, the
// service and the release alternating, and each round gives service ÷ release req/s from its adjacent runs; a
// scenario whose median is below `throughput.minimum` gets more rounds, and fails when the median of all stays below.
import { readFileSync } from 'node:fs';

const CHECK_CONNECTIONS = 2;

/**
 * The check's run: a few minutes on 2 cores. Few connections: with many, how a server batches
 * requests per event-loop turn, and so its CPU per request, depends on the machine's other load.
 * `confirmRounds`: the rounds added to a scenario over its limit before its verdict is final.
 * `deletesPerSecond`: blogs standing ready per second of a delete run (on 2 connections the baseline deletes up to
 * ~4,200 a second since a delete takes no sitemap block lock; a run that runs out answers 404s, which fail the check).
 */
export const CHECK = {
  rows: 10_000,
  duration: 2,
  connections: CHECK_CONNECTIONS,
  rounds: 3,
  confirmRounds: 6,
  deletesPerSecond: 8_000,
};

/**
 * The throughput half's run: on 50 connections a lock that makes writers wait shows in req/s. The release's runs
 * alternate with the service's, the order turning each round. `deletesPerSecond`: above what any server here deletes
 * on 50 connections (the service ~2,900 since a delete takes no sitemap block lock; 428f16b 900–2,100).
 */
export const THROUGHPUT_CHECK = {
  connections: 50,
  duration: 3,
  rounds: 3,
  confirmRounds: 3,
  deletesPerSecond: 8_000,
};

/**
 * bench/budget.json: `{ tolerance, release?: { ref, tolerance, why }, throughput?: { minimum, scenarios: string[],
 * minimums?: { <scenario>: { minimum, why } }, why }, scenarios: { <scenario>: { budget, of?, why } } }`; with `of` (another scenario of the file), the budget bounds
 * {@link relativeRatio} itself, without the tolerance; `throughput` needs `release`.
 * @throws when the file is missing, or a budget, a tolerance or the minimum is not a positive number
 */
export function readBudget(file = new URL('budget.json', import.meta.url)) {
  const budget = JSON.parse(readFileSync(file, 'utf8'));
  const positive = (value) => typeof value === 'number' && value > 0;
  if (!positive(budget.tolerance)) throw new Error(`${file}: tolerance must be a positive number`);
  if (budget.release !== undefined && (typeof budget.release.ref !== 'string' || !positive(budget.release.tolerance))) {
    throw new Error(`${file}: release must name a ref and a positive tolerance`);
  }
  const { throughput } = budget;
  if (
    throughput !== undefined &&
    (budget.release === undefined ||
      !positive(throughput.minimum) ||
      !Array.isArray(throughput.scenarios) ||
      throughput.scenarios.length === 0)
  ) {
    throw new Error(`${file}: throughput needs release, a positive minimum and scenarios`);
  }
  for (const [name, entry] of Object.entries(throughput?.minimums ?? {})) {
    if (!throughput.scenarios.includes(name) || !positive(entry.minimum) || typeof entry.why !== 'string') {
      throw new Error(
        `${file}: throughput.minimums.${name} needs a scenario of throughput, a positive minimum and why`,
      );
    }
  }
  for (const [name, entry] of Object.entries(budget.scenarios ?? {})) {
    if (!positive(entry.budget)) throw new Error(`${file}: ${name}.budget must be a positive number`);
    if (entry.of !== undefined && budget.scenarios[entry.of] === undefined) {
      throw new Error(`${file}: ${name}.of must name another scenario of the file`);
    }
  }
  if (Object.keys(budget.scenarios ?? {}).length === 0) throw new Error(`${file}: no scenarios`);
  return budget;
}

/**
 * The scenarios a check runs, of `names` (all when undefined), in the budget's order: `cpu`, those of `scenarios` with
 * the scenarios their `of` names; `throughput`, those of `throughput.scenarios`.
 * @returns { cpu: string[], throughput: string[] }
 * @throws on a name the budget has no entry for
 */
export function checkScenarios(budget, names) {
  const inThroughput = budget.throughput?.scenarios ?? [];
  const unknown = (names ?? []).filter((name) => budget.scenarios[name] === undefined && !inThroughput.includes(name));
  if (unknown.length > 0) throw new Error(`--check: bench/budget.json has no scenario ${unknown.join(', ')}`);
  const named = names ?? [...Object.keys(budget.scenarios), ...inThroughput];
  const wanted = new Set(
    named.filter((name) => budget.scenarios[name]).flatMap((name) => [name, budget.scenarios[name].of]),
  );
  return {
    cpu: Object.keys(budget.scenarios).filter((name) => wanted.has(name)),
    throughput: inThroughput.filter((name) => named.includes(name)),
  };
}

/** The median of `values` (NaN of none). */
function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median over the rounds of service ÷ `other` (the baseline) CPU µs per request (each round's own pair of runs). */
export function roundRatio(scenario, other = 'baseline') {
  return median(
    scenario.service.rounds.map(
      (run, i) => run.cpuUsPerRequest / Math.max(scenario[other].rounds[i].cpuUsPerRequest, 1),
    ),
  );
}

/** Each round's service ÷ `other` (the release) req/s, of the rounds both ran. */
export function throughputRatios(scenario, other) {
  const count = Math.min(scenario.service.rounds.length, scenario[other].rounds.length);
  return Array.from(
    { length: count },
    (_, i) => scenario.service.rounds[i].requestsPerSecond / Math.max(scenario[other].rounds[i].requestsPerSecond, 1),
  );
}

/** The service's and its databases' CPU µs per request of one run. */
const totalCpu = (run) => run.cpuUsPerRequest + Object.values(run.dbCpuUsPerRequest ?? {}).reduce((a, b) => a + b, 0);

/** The median over the rounds of `scenario`'s service and database CPU per request ÷ `other`'s (round i with round i). */
export function relativeRatio(scenario, other) {
  const count = Math.min(scenario.service.rounds.length, other.service.rounds.length);
  return median(
    Array.from(
      { length: count },
      (_, i) => totalCpu(scenario.service.rounds[i]) / Math.max(totalCpu(other.service.rounds[i]), 1),
    ),
  );
}

/**
 * One line per scenario of `names` (budgeted, run in `step`, a bench step): ratio, budget, limit, service ÷
 * `releaseName`'s CPU when the step has it, ok or FAIL.
 * @returns { lines, ok, failing } where failing names the scenarios whose ratio is above its limit (and, with a
 *   release, whose CPU is above the release's × its tolerance) or that are missing, and ok is true when none is
 */
export function checkBudget(step, budget, names, releaseName) {
  const release = releaseName && budget.release;
  const lines = [
    `CPU per request, service ÷ baseline (median of the rounds' ratios), against bench/budget.json (limit = budget × ${budget.tolerance})` +
      (release ? `; above its limit, a scenario passes within ${release.tolerance} × ${releaseName}'s CPU:` : ':'),
    '',
    `${'scenario'.padEnd(18)} ${'ratio'.padStart(6)} ${'budget'.padStart(6)} ${'limit'.padStart(6)} ${'÷ rel.'.padStart(6)}  result`,
  ];
  const failing = [];
  for (const name of names) {
    const { budget: allowed, of } = budget.scenarios[name];
    const s = step.scenarios[name];
    const limit = of === undefined ? allowed * budget.tolerance : allowed;
    const ratio = !s ? Number.NaN : of === undefined ? roundRatio(s) : relativeRatio(s, step.scenarios[of]);
    const againstRelease = of === undefined && release && s?.[releaseName] ? roundRatio(s, releaseName) : Number.NaN;
    const result =
      ratio <= limit
        ? 'ok'
        : againstRelease <= release?.tolerance
          ? `ok (within ${release.tolerance} × release)`
          : 'FAIL';
    if (result === 'FAIL') failing.push(name);
    lines.push(
      `${name.padEnd(18)} ${ratio.toFixed(2).padStart(6)} ${allowed.toFixed(2).padStart(6)} ${limit.toFixed(2).padStart(6)} ${(Number.isNaN(againstRelease) ? '-' : againstRelease.toFixed(2)).padStart(6)}  ${result}`,
    );
  }
  const ok = failing.length === 0;
  lines.push('', ok ? 'benchmark guard: ok' : 'benchmark guard: FAIL (see docs/performance.md, "The CI guard")');
  return { lines, ok, failing };
}

/**
 * One line per scenario of `names` (of `budget.throughput`, run in `step` on 50 connections): service and
 * `releaseName`'s req/s (medians), the median of {@link throughputRatios}, ok or FAIL, and each round's ratio; a scenario the release does not
 * serve (an older release without comments) is skipped, saying so.
 * @returns { lines, ok, failing } where failing names the scenarios below the minimum or not run, and ok is true when
 *   none is
 */
export function checkThroughput(step, budget, names, releaseName) {
  const { minimum } = budget.throughput;
  const minimumOf = (name) => budget.throughput.minimums?.[name]?.minimum ?? minimum;
  const own = names.filter((name) => minimumOf(name) !== minimum).map((name) => `${name} ${minimumOf(name)}`);
  const lines = [
    `Throughput on ${THROUGHPUT_CHECK.connections} connections, service ÷ ${releaseName} req/s (median of the rounds' ratios), at least ${minimum}${own.length > 0 ? ` (${own.join(', ')})` : ''} (bench/budget.json, throughput):`,
    '',
    `${'scenario'.padEnd(18)} ${'service'.padStart(8)} ${'release'.padStart(8)} ${'ratio'.padStart(6)}  result  (each round's ratio)`,
  ];
  const failing = [];
  for (const name of names) {
    const s = step.scenarios[name];
    const served = s?.service && s[releaseName];
    const each = served ? throughputRatios(s, releaseName) : [];
    const ratio = served ? median(each) : Number.NaN;
    const result = !s?.service
      ? 'FAIL (not run)'
      : !served
        ? 'skipped (the release serves none)'
        : ratio >= minimumOf(name)
          ? 'ok'
          : 'FAIL';
    if (result.startsWith('FAIL')) failing.push(name);
    const rps = (server) =>
      s?.[server] ? Math.round(median(s[server].rounds.map((run) => run.requestsPerSecond))) : '-';
    lines.push(
      `${name.padEnd(18)} ${String(rps('service')).padStart(8)} ${String(rps(releaseName)).padStart(8)} ${(served ? ratio.toFixed(2) : '-').padStart(6)}  ${result}${each.length > 0 ? `  (${each.map((r) => r.toFixed(2)).join(' ')})` : ''}`,
    );
  }
  const ok = failing.length === 0;
  lines.push('', ok ? 'throughput guard: ok' : 'throughput guard: FAIL (see docs/performance.md, "The CI guard")');
  return { lines, ok, failing };
}

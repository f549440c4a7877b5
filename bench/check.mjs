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
import { readFileSync } from 'node:fs';

const CHECK_CONNECTIONS = 2;

/**
 * The check's run: a few minutes on 2 cores. Few connections: with many, how a server batches
 * requests per event-loop turn, and so its CPU per request, depends on the machine's other load.
 * `confirmRounds`: the rounds added to a scenario over its limit before its verdict is final.
 * `deletesPerSecond`: blogs standing ready per second of a delete run (on 2 connections no server
 * here deletes 1,000 a second; a run that runs out answers 404s, which fail the check).
 */
export const CHECK = {
  rows: 10_000,
  duration: 2,
  connections: CHECK_CONNECTIONS,
  rounds: 3,
  confirmRounds: 6,
  deletesPerSecond: 2_500,
};

/**
 * bench/budget.json: `{ tolerance, release?: { ref, tolerance, why }, scenarios: { <scenario>: { budget, of?, why } } }`;
 * with `of` (another scenario of the file), the budget bounds {@link relativeRatio} itself, without the tolerance.
 * @throws when the file is missing, or a budget or a tolerance is not a positive number
 */
export function readBudget(file = new URL('budget.json', import.meta.url)) {
  const budget = JSON.parse(readFileSync(file, 'utf8'));
  const positive = (value) => typeof value === 'number' && value > 0;
  if (!positive(budget.tolerance)) throw new Error(`${file}: tolerance must be a positive number`);
  if (budget.release !== undefined && (typeof budget.release.ref !== 'string' || !positive(budget.release.tolerance))) {
    throw new Error(`${file}: release must name a ref and a positive tolerance`);
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
 * The scenarios a check runs: `names` (all of the budget's when undefined) and the scenarios their `of` names, in the
 * budget's order. @throws on a name the budget has no entry for
 */
export function checkScenarios(budget, names) {
  const unknown = (names ?? []).filter((name) => budget.scenarios[name] === undefined);
  if (unknown.length > 0) throw new Error(`--check: bench/budget.json has no scenario ${unknown.join(', ')}`);
  const wanted = new Set((names ?? Object.keys(budget.scenarios)).flatMap((name) => [name, budget.scenarios[name].of]));
  return Object.keys(budget.scenarios).filter((name) => wanted.has(name));
}

/** The median over the rounds of service ÷ `other` (the baseline) CPU µs per request (each round's own pair of runs). */
export function roundRatio(scenario, other = 'baseline') {
  const ratios = scenario.service.rounds
    .map((run, i) => run.cpuUsPerRequest / Math.max(scenario[other].rounds[i].cpuUsPerRequest, 1))
    .sort((a, b) => a - b);
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
}

/** The service's and its databases' CPU µs per request of one run. */
const totalCpu = (run) => run.cpuUsPerRequest + Object.values(run.dbCpuUsPerRequest ?? {}).reduce((a, b) => a + b, 0);

/** The median over the rounds of `scenario`'s service and database CPU per request ÷ `other`'s (round i with round i). */
export function relativeRatio(scenario, other) {
  const count = Math.min(scenario.service.rounds.length, other.service.rounds.length);
  const ratios = Array.from(
    { length: count },
    (_, i) => totalCpu(scenario.service.rounds[i]) / Math.max(totalCpu(other.service.rounds[i]), 1),
  ).sort((a, b) => a - b);
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[mid] : (ratios[mid - 1] + ratios[mid]) / 2;
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

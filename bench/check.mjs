// `npm run bench -- --check`: the CI guard. A short run of the scenarios of bench/budget.json, then
// per scenario r = service CPU µs per request ÷ baseline CPU µs per request (medians of the rounds,
// same run), compared with the committed budget: r above budget × tolerance fails the check.
import { readFileSync } from 'node:fs';

/** The check's run: small enough for a few minutes on 2 cores, each round long enough for steady CPU figures. */
export const CHECK = { rows: 10_000, duration: 3, connections: 10, rounds: 3 };

/**
 * bench/budget.json: `{ tolerance, scenarios: { <scenario>: { budget, why } } }`.
 * @throws when the file is missing, or a budget or the tolerance is not a positive number
 */
export function readBudget(file = new URL('budget.json', import.meta.url)) {
  const budget = JSON.parse(readFileSync(file, 'utf8'));
  const positive = (value) => typeof value === 'number' && value > 0;
  if (!positive(budget.tolerance)) throw new Error(`${file}: tolerance must be a positive number`);
  for (const [name, entry] of Object.entries(budget.scenarios ?? {})) {
    if (!positive(entry.budget)) throw new Error(`${file}: ${name}.budget must be a positive number`);
  }
  if (Object.keys(budget.scenarios ?? {}).length === 0) throw new Error(`${file}: no scenarios`);
  return budget;
}

/**
 * One line per budgeted scenario of `step` (a bench step): ratio, budget, limit, ok or FAIL.
 * @returns { lines, ok } where ok is false when any ratio is above its limit or a scenario is missing
 */
export function checkBudget(step, budget) {
  const lines = [
    `CPU per request, service ÷ baseline (medians), against bench/budget.json (limit = budget × ${budget.tolerance}):`,
    '',
    `${'scenario'.padEnd(14)} ${'ratio'.padStart(6)} ${'budget'.padStart(6)} ${'limit'.padStart(6)}  result`,
  ];
  let ok = true;
  for (const [name, { budget: allowed }] of Object.entries(budget.scenarios)) {
    const s = step.scenarios[name];
    const limit = allowed * budget.tolerance;
    const ratio = s ? s.service.cpuUsPerRequest / Math.max(s.baseline.cpuUsPerRequest, 1) : Number.NaN;
    const passed = ratio <= limit;
    ok &&= passed;
    lines.push(
      `${name.padEnd(14)} ${ratio.toFixed(2).padStart(6)} ${allowed.toFixed(2).padStart(6)} ${limit.toFixed(2).padStart(6)}  ${passed ? 'ok' : 'FAIL'}`,
    );
  }
  lines.push('', ok ? 'benchmark guard: ok' : 'benchmark guard: FAIL (see docs/performance.md, "The CI guard")');
  return { lines, ok };
}

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Run {
  cpuUsPerRequest: number;
  dbCpuUsPerRequest?: Record<string, number>;
  requestsPerSecond?: number;
}
type Scenario = Record<string, { rounds: Run[] }>;
interface Budget {
  tolerance: number;
  release?: { ref: string; tolerance: number };
  throughput?: { minimum: number; scenarios: string[]; minimums?: Record<string, { minimum: number; why: string }> };
  scenarios: Record<string, { budget: number; of?: string }>;
}
type Verdict = { lines: string[]; ok: boolean; failing: string[] };
interface Check {
  readBudget(file: string): Budget;
  checkScenarios(budget: Budget, names?: string[]): { cpu: string[]; throughput: string[] };
  checkBudget(
    step: { scenarios: Record<string, Scenario> },
    budget: Budget,
    names: string[],
    releaseName?: string,
  ): Verdict;
  checkThroughput(
    step: { scenarios: Record<string, Scenario> },
    budget: Budget,
    names: string[],
    releaseName: string,
  ): Verdict;
}

const ROOT = join(__dirname, '..', '..');
const BUDGET: Budget = {
  tolerance: 1.2,
  release: { ref: 'abc1234', tolerance: 1.1 },
  throughput: { minimum: 0.8, scenarios: ['create-numbered', 'delete', 'comment-create'] },
  scenarios: {
    'read-one': { budget: 3 },
    create: { budget: 2 },
    'create-same-title': { budget: 1.25, of: 'create' },
  },
};
/** Three rounds of one server at these CPU µs per request (and, for the `of` bound, as much database CPU). */
const rounds = (...cpu: number[]): { rounds: Run[] } => ({
  rounds: cpu.map((us) => ({ cpuUsPerRequest: us, dbCpuUsPerRequest: { primary: us } })),
});
/** Rounds of one server at these req/s. */
const rates = (...rps: number[]): { rounds: Run[] } => ({
  rounds: rps.map((requestsPerSecond) => ({ cpuUsPerRequest: 500, requestsPerSecond })),
});
const RELEASE = 'release abc1234';

// bench/check.mjs: the CI guard's verdict (npm run bench -- --check), from a bench step's rounds.
describe('bench/check.mjs', () => {
  let check: Check;
  beforeAll(async () => {
    check = (await import(pathToFileURL(join(ROOT, 'bench', 'check.mjs')).href)) as Check;
  });

  it.each<[string, string[] | undefined, string[], string[]]>([
    [
      'every scenario of the budget',
      undefined,
      ['read-one', 'create', 'create-same-title'],
      ['create-numbered', 'delete', 'comment-create'],
    ],
    ['the scenarios named', ['read-one'], ['read-one'], []],
    [
      'with the scenario an `of` names, in the budget’s order',
      ['create-same-title'],
      ['create', 'create-same-title'],
      [],
    ],
    ['a throughput scenario alone', ['delete', 'create-numbered'], [], ['create-numbered', 'delete']],
  ])('checkScenarios: %s', (_name, names, cpu, throughput) => {
    expect(check.checkScenarios(BUDGET, names)).toEqual({ cpu, throughput });
  });

  it('checkScenarios refuses a scenario the budget lacks', () => {
    expect(() => check.checkScenarios(BUDGET, ['read-one', 'nope'])).toThrow('no scenario nope');
  });

  it.each<[string, Scenario, string | undefined, string]>([
    ['within the limit', { baseline: rounds(100, 100, 100), service: rounds(300, 350, 360) }, undefined, 'ok'],
    ['over it, no release', { baseline: rounds(100, 100, 100), service: rounds(370, 380, 390) }, undefined, 'FAIL'],
    [
      'over it, within 1.1 × the release',
      { baseline: rounds(100, 100, 100), service: rounds(370, 380, 390), [RELEASE]: rounds(350, 360, 370) },
      RELEASE,
      'ok (within 1.1 × release)',
    ],
    [
      'over it and over 1.1 × the release',
      { baseline: rounds(100, 100, 100), service: rounds(370, 380, 390), [RELEASE]: rounds(300, 300, 300) },
      RELEASE,
      'FAIL',
    ],
  ])('checkBudget, read-one %s', (_name, scenario, releaseName, result) => {
    const verdict = check.checkBudget({ scenarios: { 'read-one': scenario } }, BUDGET, ['read-one'], releaseName);
    expect(verdict.lines.find((line) => line.startsWith('read-one'))?.endsWith(`  ${result}`)).toBe(true);
    expect([verdict.ok, verdict.failing]).toEqual(result === 'FAIL' ? [false, ['read-one']] : [true, []]);
  });

  it('checkBudget judges only the scenarios named: one not run is missing, and fails', () => {
    const step = { scenarios: { 'read-one': { baseline: rounds(100), service: rounds(300) } } };
    expect(check.checkBudget(step, BUDGET, ['read-one']).ok).toBe(true);
    expect(check.checkBudget(step, BUDGET, ['read-one', 'create']).failing).toEqual(['create']);
  });

  it.each<[string, number, boolean]>([
    ['1.2 × create', 240, true],
    ['1.3 × create', 260, false],
  ])('checkBudget bounds create-same-title by create of the same run: %s', (_name, cpu, ok) => {
    const step = {
      scenarios: {
        create: { baseline: rounds(100, 100, 100), service: rounds(200, 200, 200) },
        'create-same-title': { baseline: rounds(100, 100, 100), service: rounds(cpu, cpu, cpu) },
      },
    };
    expect(check.checkBudget(step, BUDGET, ['create', 'create-same-title'], RELEASE).ok).toBe(ok);
  });

  it.each<[string, Scenario, string]>([
    ['as fast as the release', { service: rates(500, 480, 520), [RELEASE]: rates(500, 500, 500) }, 'ok'],
    ['at the minimum', { service: rates(400, 400, 400), [RELEASE]: rates(500, 500, 500) }, 'ok'],
    ['one slow round of three', { service: rates(100, 480, 520), [RELEASE]: rates(500, 500, 500) }, 'ok'],
    ['writers waiting on one lock', { service: rates(130, 125, 190), [RELEASE]: rates(460, 550, 500) }, 'FAIL'],
    ['below it in two rounds of three', { service: rates(390, 380, 600), [RELEASE]: rates(500, 500, 500) }, 'FAIL'],
    [
      'below it in three rounds, above in six more',
      { service: rates(390, 380, 390, 500, 500, 500, 500, 500, 500), [RELEASE]: rates(...Array(9).fill(500)) },
      'ok',
    ],
    [
      'below it in three rounds and in three more',
      { service: rates(390, 380, 390, 500, 380, 390), [RELEASE]: rates(...Array(6).fill(500)) },
      'FAIL',
    ],
    ['judged on the rounds both ran', { service: rates(500, 500, 500, 100), [RELEASE]: rates(500, 500, 500) }, 'ok'],
  ])('checkThroughput, service ÷ release req/s: %s', (_name, scenario, result) => {
    const verdict = check.checkThroughput({ scenarios: { delete: scenario } }, BUDGET, ['delete'], RELEASE);
    expect(verdict.lines.find((line) => line.startsWith('delete'))).toMatch(new RegExp(`\\s${result}  \\(`));
    expect([verdict.ok, verdict.failing]).toEqual(result === 'FAIL' ? [false, ['delete']] : [true, []]);
  });

  it.each<[string, number, string]>([
    ['at its own minimum', 300, 'ok'],
    ['below its own minimum', 290, 'FAIL'],
  ])('checkThroughput, a scenario with a minimum of its own (0.6): %s', (_name, rps, result) => {
    const budget: Budget = {
      ...BUDGET,
      throughput: { ...BUDGET.throughput!, minimums: { delete: { minimum: 0.6, why: 'priced' } } },
    };
    const scenario = { service: rates(rps, rps, rps), [RELEASE]: rates(500, 500, 500) };
    const verdict = check.checkThroughput({ scenarios: { delete: scenario } }, budget, ['delete'], RELEASE);
    expect(verdict.lines[0]).toContain('at least 0.8 (delete 0.6)');
    expect(verdict.lines.find((line) => line.startsWith('delete'))).toMatch(new RegExp(`\\s${result}  \\(`));
  });

  it.each<[string, Record<string, Scenario>, boolean, string]>([
    ['one the release does not serve is skipped', { 'comment-create': { service: rates(500) } }, true, 'skipped'],
    ['one not run fails', {}, false, 'FAIL (not run)'],
  ])('checkThroughput: %s', (_name, scenarios, ok, result) => {
    const verdict = check.checkThroughput({ scenarios }, BUDGET, ['comment-create'], RELEASE);
    expect(verdict.ok).toBe(ok);
    expect(verdict.lines.find((line) => line.startsWith('comment-create'))).toContain(`  ${result}`);
  });

  it.each<[string, object, string]>([
    ['the shipped bench/budget.json', {}, ''],
    ['a throughput half without a release', { release: undefined }, 'throughput needs release'],
    ['a minimum of 0', { throughput: { minimum: 0, scenarios: ['delete'] } }, 'throughput needs release'],
    ['no throughput scenarios', { throughput: { minimum: 0.8, scenarios: [] } }, 'throughput needs release'],
    [
      'a minimum of its own for a scenario the half does not run',
      { throughput: { minimum: 0.8, scenarios: ['delete'], minimums: { update: { minimum: 0.6, why: 'x' } } } },
      'throughput.minimums.update',
    ],
  ])('readBudget: %s', (_name, change, error) => {
    const shipped = join(ROOT, 'bench', 'budget.json');
    const dir = mkdtempSync(join(tmpdir(), 'bench-budget-'));
    const file = join(dir, 'budget.json');
    try {
      writeFileSync(file, JSON.stringify({ ...(JSON.parse(readFileSync(shipped, 'utf8')) as object), ...change }));
      if (error) expect(() => check.readBudget(file)).toThrow(error);
      else expect(check.readBudget(file).throughput?.scenarios).toContain('create-numbered');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

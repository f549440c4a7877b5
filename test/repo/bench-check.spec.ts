import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

interface Run {
  cpuUsPerRequest: number;
  dbCpuUsPerRequest?: Record<string, number>;
}
type Scenario = Record<string, { rounds: Run[] }>;
interface Budget {
  tolerance: number;
  release?: { ref: string; tolerance: number };
  scenarios: Record<string, { budget: number; of?: string }>;
}
interface Check {
  checkScenarios(budget: Budget, names?: string[]): string[];
  checkBudget(
    step: { scenarios: Record<string, Scenario> },
    budget: Budget,
    names: string[],
    releaseName?: string,
  ): { lines: string[]; ok: boolean; failing: string[] };
}

const ROOT = join(__dirname, '..', '..');
const BUDGET: Budget = {
  tolerance: 1.2,
  release: { ref: 'abc1234', tolerance: 1.1 },
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
const RELEASE = 'release abc1234';

// bench/check.mjs: the CI guard's verdict (npm run bench -- --check), from a bench step's rounds.
describe('bench/check.mjs', () => {
  let check: Check;
  beforeAll(async () => {
    check = (await import(pathToFileURL(join(ROOT, 'bench', 'check.mjs')).href)) as Check;
  });

  it.each<[string, string[] | undefined, string[]]>([
    ['every scenario of the budget', undefined, ['read-one', 'create', 'create-same-title']],
    ['the scenarios named', ['read-one'], ['read-one']],
    ['with the scenario an `of` names, in the budget’s order', ['create-same-title'], ['create', 'create-same-title']],
  ])('checkScenarios: %s', (_name, names, expected) => {
    expect(check.checkScenarios(BUDGET, names)).toEqual(expected);
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
});

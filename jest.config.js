// Projects: unit specs beside the code (database mocked), e2e specs under test/ that boot the
// real AppModule against PostgreSQL (DATABASE_URL) or, when it is unset, the embedded database.
// A third project, repo, checks files of the repository (deployment manifests, configuration
// docs) without starting anything. `npm test` runs all three; node runs with --experimental-vm-modules,
// with which jest (on Node 24.9 or later) loads ES modules: the @nestjs/* packages, pg-boss, PGlite.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

// Spec sets of the e2e project: test/support/spec-sets.js.
const { SLOW_SPECS, WAITING_SPECS, ENGINE_FREE_SPECS, HTTP_ONLY_SPECS } = require('./test/support/spec-sets');
const { patience } = require('./test/support/patience');
const spec = (name) => `<rootDir>/test/${name}.e2e-spec.ts`;
const e2eSpecs = process.env.TEST_SERVICE_NODE
  ? HTTP_ONLY_SPECS.map(spec)
  : process.env.TEST_WAITING === 'only'
    ? WAITING_SPECS.map(spec)
    : [spec('**/*')];
const e2eIgnored = [
  ...(process.env.TEST_FULL === '1' ? [] : SLOW_SPECS),
  ...(process.env.TEST_DATA_PATH_ONLY === '1' ? ENGINE_FREE_SPECS : []),
  ...(process.env.TEST_WAITING === 'skip' ? WAITING_SPECS : []),
].map((name) => `/test/${name}\\.e2e-spec\\.ts$`);

/** @type {import('jest').Config} */
module.exports = {
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
      transform,
    },
    {
      displayName: 'repo',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/repo/**/*.spec.ts'],
      transform,
    },
    {
      displayName: 'e2e',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: e2eSpecs,
      testPathIgnorePatterns: ['/node_modules/', ...e2eIgnored],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      transform,
    },
  ],
  // A net under tests that wait for conditions: 60 s × TEST_PATIENCE (test/support/patience.js).
  testTimeout: patience(60_000),
  testSequencer: '<rootDir>/test/support/slow-first.sequencer.js',
  // A worker per core (jest's default leaves one to itself): e2e files spend much of their time waiting on the
  // database and on spawned processes, and each has its own database, so two workers on 2 cores halve the e2e runs.
  maxWorkers: '100%',
  // A worker's exit waits for its heap's teardown: ~1 GB takes 1.4–2 s on a busy 2-core host (0.1 s idle), past jest's
  // 500 ms, after which jest kills it and reports a leak that is not there (docs/architecture.md, "Tests").
  workerGracefulExitTimeout: patience(1_000),
};

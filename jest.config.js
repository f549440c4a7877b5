// Projects: unit specs beside the code (database mocked), e2e specs under test/ that boot the
// real AppModule against PostgreSQL (DATABASE_URL) or, when it is unset, the embedded database.
// A third project, repo, checks files of the repository (deployment manifests, configuration
// docs) without starting anything. `npm test` runs all three; node runs with --experimental-vm-modules,
// with which jest (on Node 24.9 or later) loads ES modules: the @nestjs/* packages, pg-boss, PGlite.
const transform = { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] };

// Spec sets of the e2e project (names under test/, without `.e2e-spec.ts`):
// - SLOW_SPECS wait minutes on real time or real processes (a two-minute receiver outage, retries, start-up with a bad
//   configuration through spawned processes, npm scripts): `npm test` leaves them out, `npm run test:full` (TEST_FULL=1)
//   and CI run them.
// - ENGINE_FREE_SPECS assert nothing that depends on the database engine (start-up, npm scripts, the API documents,
//   JWKS, compression, request cost): with TEST_DATA_PATH_ONLY=1 (CI's runs on other engines) they are left out, since
//   the PostgreSQL run has them.
// - HTTP_ONLY_SPECS speak to the app only over HTTP (supertest, `t.listen()`) and to its database directly, nothing
//   in-process (`t.app`, a changed testing module): with TEST_SERVICE_NODE=<node binary> the apps are the built
//   service (dist/main.js) started with that node (test/support/test-app.ts), and the e2e project runs these only.
const SLOW_SPECS = ['embedded-data-dir', 'npm-scripts', 'startup', 'webhooks-outage', 'webhooks-reliability'];
const ENGINE_FREE_SPECS = ['compression', 'jwks', 'npm-scripts', 'openapi', 'request-cost', 'startup', 'swagger-ui'];
const HTTP_ONLY_SPECS = [
  'auth',
  'blogs-fetch-conditional',
  'blogs-list-cursor',
  'blogs-list-query',
  'compression',
  'hostile-input',
  'jwks',
  'openapi',
  'readme-walkthrough',
];
const spec = (name) => `<rootDir>/test/${name}.e2e-spec.ts`;
const e2eSpecs = process.env.TEST_SERVICE_NODE ? HTTP_ONLY_SPECS.map(spec) : [spec('**/*')];
const e2eIgnored = [
  ...(process.env.TEST_FULL === '1' ? [] : SLOW_SPECS),
  ...(process.env.TEST_DATA_PATH_ONLY === '1' ? ENGINE_FREE_SPECS : []),
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
  testTimeout: 60000,
  // A worker per core (jest's default leaves one to itself): e2e files spend much of their time waiting on the
  // database and on spawned processes, and each has its own database, so two workers on 2 cores halve the e2e runs.
  maxWorkers: '100%',
};

// Spec sets of the e2e project (names under test/, without `.e2e-spec.ts`), read by jest.config.js:
// - SLOW_SPECS wait minutes on real time or real processes (a two-minute receiver outage, retries, start-up with a bad
//   configuration through spawned processes, npm scripts), slowest first: `npm test` leaves them out, `npm run
//   test:full` (TEST_FULL=1) and CI run them, first (slow-first.sequencer.js).
// - ENGINE_FREE_SPECS assert nothing that depends on the database engine (start-up, npm scripts, the API documents,
//   JWKS, compression, request cost; PgBouncer and replicas, whose specs make PostgreSQL clusters of their own): with
//   TEST_DATA_PATH_ONLY=1 (CI's runs on other engines) they are left out, since the PostgreSQL run has them.
// - HTTP_ONLY_SPECS speak to the app only over HTTP (supertest, `t.listen()`) and to its database directly, nothing
//   in-process (`t.app`, a changed testing module): with TEST_SERVICE_NODE=<node binary> the apps are the built
//   service (dist/main.js) started with that node (test/support/test-app.ts), and the e2e project runs these only.
const SLOW_SPECS = ['webhooks-outage', 'webhooks-reliability', 'startup', 'npm-scripts', 'embedded-data-dir'];
const ENGINE_FREE_SPECS = [
  'compression',
  'jwks',
  'npm-scripts',
  'openapi',
  'pgbouncer',
  'read-replicas',
  'request-cost',
  'startup',
  'swagger-ui',
];
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

module.exports = { SLOW_SPECS, ENGINE_FREE_SPECS, HTTP_ONLY_SPECS };

// Spec sets of the e2e project (names under test/, without `.e2e-spec.ts`), read by jest.config.js:
// - SLOW_SPECS wait minutes on real time or real processes (a two-minute receiver outage, retries, start-up with a bad
//   configuration through spawned processes, npm scripts), slowest first: `npm test` leaves them out, `npm run
//   test:full` (TEST_FULL=1) and CI run them, first (slow-first.sequencer.js).
// - WAITING_SPECS spend most of their time waiting on real time with little CPU (receivers down for minutes, restarts,
//   retries, deliveries and purges awaited, a cache's answers compared seconds apart), slowest first: with
//   TEST_WAITING=skip the e2e project leaves them out, with TEST_WAITING=only it runs them alone; CI runs them embedded
//   and on PostgreSQL in a background lane, beside the other runs (.ci/run).
// - ENGINE_FREE_SPECS assert nothing that depends on the database engine (start-up, npm scripts, the API documents,
//   JWKS, compression, request cost, Varnish in front and its faults (cache-purge proves the purges on every engine);
//   PgBouncer, replicas, a database crash and migrations started together, whose specs make PostgreSQL clusters of
//   their own; the embedded DATA_DIR lock, whose spec makes an embedded database of its own): with
//   TEST_DATA_PATH_ONLY=1 (CI's runs on other engines) they are left out, since the PostgreSQL run has them.
// - HTTP_ONLY_SPECS speak to the app only over HTTP (supertest, `t.listen()`) and to its database directly, nothing
//   in-process (`t.app`, a changed testing module): with TEST_SERVICE_NODE=<node binary> the apps are the built
//   service (dist/main.js) started with that node (test/support/test-app.ts), and the e2e project runs these only.
// And one set found by convention rather than listed: a spec whose leading docblock has the pragma
// `@pgbouncer-and-replica` (a resource's API and repository specs) runs in CI's PgBouncer-and-replica run too;
// `node test/support/spec-sets.js pgbouncer-and-replica` prints their paths, one a line (.ci/run reads them).
const { readdirSync, readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const SLOW_SPECS = [
  'webhooks-outage',
  'webhooks-reliability',
  'cache-faults',
  'startup',
  'npm-scripts',
  'embedded-data-dir',
];
const WAITING_SPECS = [
  'webhooks-outage',
  'webhooks-reliability',
  'cache-faults',
  'cache-varnish',
  'cache-replicas',
  'webhooks',
  'cache-purge',
  'swagger-ui',
];
const ENGINE_FREE_SPECS = [
  'cache-faults',
  'cache-replicas',
  'cache-varnish',
  'cluster-reliability',
  'compression',
  'embedded-data-dir',
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

const ROOT = join(__dirname, '..', '..');
const TEST_DIR = join(ROOT, 'test');

/** The pragmas a spec's leading docblock (`/** … *\/` before any code) names, e.g. `pgbouncer-and-replica`. */
function pragmasOf(source) {
  const docblock = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source);
  return docblock ? [...docblock[1].matchAll(/(?:^|\s)@([a-z][a-z0-9-]*)/g)].map((match) => match[1]) : [];
}

/** The e2e spec files under `dir` (any depth), as absolute paths in name order. */
function e2eSpecFiles(dir = TEST_DIR) {
  return readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : e2eSpecFiles(path);
      return entry.name.endsWith('.e2e-spec.ts') ? [path] : [];
    });
}

/** The e2e specs whose leading docblock names `pragma`, as paths from the repository root (`test/tags.e2e-spec.ts`). */
function specsWithPragma(pragma) {
  return e2eSpecFiles()
    .filter((path) => pragmasOf(readFileSync(path, 'utf8')).includes(pragma))
    .map((path) => relative(ROOT, path));
}

module.exports = { SLOW_SPECS, WAITING_SPECS, ENGINE_FREE_SPECS, HTTP_ONLY_SPECS, pragmasOf, specsWithPragma };

// `node test/support/spec-sets.js <pragma>`: the specs that carry it, one path a line; none is an error.
if (require.main === module) {
  const [pragma] = process.argv.slice(2);
  const specs = pragma ? specsWithPragma(pragma) : [];
  if (specs.length === 0) {
    console.error(`no e2e spec carries the pragma @${pragma ?? '<pragma>'} in its leading docblock`);
    process.exit(1);
  }
  process.stdout.write(`${specs.join('\n')}\n`);
}

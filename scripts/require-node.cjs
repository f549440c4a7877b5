#!/usr/bin/env node
// The Node.js check the package scripts run before anything else: on a Node.js outside package.json's engines.node
// (and, for jest, below 24.9) it prints one line and exits 1 before a build, a watcher or a test loads.
//
//   node scripts/require-node.cjs [service|jest]     (service: the default)
//
// CommonJS and no syntax newer than Node.js 12, so that any Node.js old enough to be refused can read it.

'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const satisfies = require('semver/functions/satisfies');

const ENGINES = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).engines.node;
// jest loads the ES modules of @nestjs/*, pg-boss and PGlite with require(esm) inside its VM contexts, which it
// supports from Node.js 24.9 on; below it they fail with "Must use import to load ES Module".
const JEST_NODE = '>=24.9.0';

/**
 * Why Node.js `version` (e.g. `22.22.3`) cannot run `purpose` ('service' or 'jest'): one line, or undefined when it can.
 */
function unsupportedNode(version, purpose = 'service') {
  if (!satisfies(version, ENGINES)) {
    return `Node.js v${version} is not supported: use Node.js ${ENGINES} (package.json engines)`;
  }
  if (purpose === 'jest' && !satisfies(version, JEST_NODE)) {
    return `Node.js v${version} cannot run the tests: jest loads this project's ES modules on Node.js ${JEST_NODE} only (run them on Node.js 24)`;
  }
  return undefined;
}

module.exports = { ENGINES, JEST_NODE, unsupportedNode };

if (require.main === module) {
  const refusal = unsupportedNode(process.versions.node, process.argv[2]);
  if (refusal) {
    process.stderr.write(`${refusal}\n`);
    process.exit(1);
  }
}

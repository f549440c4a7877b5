#!/usr/bin/env node
// Static check of the Compose file, without Docker:
//
//   node scripts/validate-compose.mjs [path/to/compose.yml]     (default: docker-compose.yml)
//
// 1. parses the file as YAML (duplicate keys and syntax errors fail);
// 2. validates it against the official Compose Specification JSON schema (compose_spec.json,
//    draft-07) as shipped in the `dclint` package, with ajv;
// 3. checks what the schema cannot: `${…}` interpolation syntax, every service has an image or a
//    build, depends_on / volumes / networks / secrets / configs name things that exist, a
//    `service_healthy` dependency has a healthcheck, and the `api` service waits for `db` to be
//    healthy;
// 4. when `docker compose` works on this machine, also runs `docker compose config -q` (optional).
//
// Exit status: 0 valid, 1 invalid, 2 could not check (missing file or package, bad schema).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

async function importDev(name) {
  try {
    return await import(name);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
    process.stderr.write(`compose: cannot find the package "${name}" (a devDependency of this repo): run npm ci\n`);
    return process.exit(2);
  }
}

const AjvModule = (await importDev('ajv')).default;
const Ajv = AjvModule.default ?? AjvModule;
const { parseDocument } = await importDev('yaml');
const SCHEMA_PACKAGE = 'dclint';
const SCHEMA_FILE = 'schemas/compose.schema.json';
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function fail(lines, status = 1) {
  for (const line of [lines].flat()) process.stderr.write(`compose: ${line}\n`);
  process.exit(status);
}

// ---- arguments -------------------------------------------------------------------------------
const args = process.argv.slice(2);
if (args.includes('-h') || args.includes('--help')) {
  process.stdout.write('usage: node scripts/validate-compose.mjs [compose-file]   (default: docker-compose.yml)\n');
  process.exit(0);
}
if (args.length > 1) fail('usage: node scripts/validate-compose.mjs [compose-file]', 2);
const file = args[0] ? resolve(args[0]) : join(repoRoot, 'docker-compose.yml');
const shown = relative(process.cwd(), file) || file;
if (!existsSync(file)) fail(`${shown}: no such file`, 2);

// ---- the schema ------------------------------------------------------------------------------
function loadSchema() {
  const require = createRequire(import.meta.url);
  let pkgJson;
  try {
    pkgJson = require.resolve(`${SCHEMA_PACKAGE}/package.json`);
  } catch {
    fail(`cannot find the package "${SCHEMA_PACKAGE}" (it ships the compose-spec schema): run npm ci`, 2);
  }
  const { version } = JSON.parse(readFileSync(pkgJson, 'utf8'));
  const schema = JSON.parse(readFileSync(join(dirname(pkgJson), SCHEMA_FILE), 'utf8'));
  if (
    schema.$id !== 'compose_spec.json' ||
    !/draft-07/.test(String(schema.$schema)) ||
    schema.title !== 'Compose Specification'
  ) {
    fail(
      `${SCHEMA_PACKAGE}@${version}/${SCHEMA_FILE} is not the compose-spec draft-07 schema ($id ${schema.$id}, $schema ${schema.$schema})`,
      2,
    );
  }
  return { schema, source: `${SCHEMA_PACKAGE}@${version}` };
}

/** Every `format` value used in the schema. */
function formatsIn(node, found = new Set()) {
  if (Array.isArray(node)) node.forEach((item) => formatsIn(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') found.add(value);
      else formatsIn(value, found);
    }
  }
  return found;
}

function compileSchema(schema) {
  // The schema names its meta-schema by an https URL ajv does not know under that name; ajv's
  // default meta-schema is draft-07 and the schema is still checked against it when compiled.
  const { $schema: _metaSchema, ...body } = schema;
  const ajv = new Ajv({
    allErrors: true,
    allowUnionTypes: true, // the schema uses "type": ["string", "number"] and the like
    strictTypes: false,
    logger: { log() {}, warn() {}, error: (...msg) => process.stderr.write(`compose: ajv: ${msg.join(' ')}\n`) },
  });
  // Compose formats (duration, ports, …) are not JSON Schema formats: accept any value for them
  // rather than refusing to compile. Structural keywords are still enforced.
  for (const format of formatsIn(body)) {
    if (!ajv.formats[format]) ajv.addFormat(format, true);
  }
  try {
    return ajv.compile(body);
  } catch (error) {
    return fail(`cannot compile the compose-spec schema: ${error.message}`, 2);
  }
}

function describe(error) {
  const where = error.instancePath === '' ? '(top level)' : error.instancePath.slice(1).replaceAll('/', '.');
  let detail = error.message ?? error.keyword;
  if (error.keyword === 'additionalProperties') detail = `unknown key "${error.params.additionalProperty}"`;
  if (error.keyword === 'enum') detail += `: ${error.params.allowedValues.join(', ')}`;
  return `${where}: ${detail}`;
}

// ---- checks the schema cannot express --------------------------------------------------------
const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const namesOf = (value) =>
  Array.isArray(value)
    ? value.map((item) => (isObject(item) ? item.source : item))
    : isObject(value)
      ? Object.keys(value)
      : [];

/** Compose interpolation: $$, $NAME, ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?err}, ${NAME?err}, ${NAME:+alt}, ${NAME+alt}. */
function interpolationErrors(text) {
  const errors = [];
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '$') continue;
    const next = text[i + 1];
    if (next === '$') {
      i++;
    } else if (next === '{') {
      let depth = 0;
      let end = -1;
      for (let j = i + 1; j < text.length; j++) {
        if (text[j] === '{') depth++;
        else if (text[j] === '}' && --depth === 0) {
          end = j;
          break;
        }
      }
      const inner = end < 0 ? null : text.slice(i + 2, end);
      if (inner === null) errors.push(`unclosed "\${" in "${text}"`);
      else if (!/^[A-Za-z_][A-Za-z0-9_]*(?::?[-?+][\s\S]*)?$/.test(inner))
        errors.push(`invalid interpolation "\${${inner}}" (use $$ for a literal $)`);
      else
        for (const nested of interpolationErrors(inner.replace(/^[A-Za-z_][A-Za-z0-9_]*:?[-?+]?/, '')))
          errors.push(nested);
      if (end < 0) break;
      i = end;
    } else if (!/[A-Za-z_]/.test(next ?? '')) {
      errors.push(`invalid interpolation: lone "$" in "${text}" (use $$ for a literal $)`);
    }
  }
  return errors;
}

function walkStrings(node, path, visit) {
  if (typeof node === 'string') visit(node, path);
  else if (Array.isArray(node)) node.forEach((item, index) => walkStrings(item, `${path}[${index}]`, visit));
  else if (isObject(node))
    for (const [key, value] of Object.entries(node)) walkStrings(value, path ? `${path}.${key}` : key, visit);
}

/** Name of the named volume a service volume entry uses, or undefined (bind mount, anonymous, tmpfs). */
function namedVolume(entry) {
  if (isObject(entry)) return (entry.type ?? 'volume') === 'volume' && entry.source ? entry.source : undefined;
  if (typeof entry !== 'string') return undefined;
  const parts = entry.split(':');
  if (parts.length < 2) return undefined; // "/path": anonymous volume
  if (parts.length >= 3 && /^[A-Za-z]$/.test(parts[0]) && /^[\\/]/.test(parts[1])) return undefined; // C:\… on Windows
  const source = parts[0];
  return /^[./~$\\]/.test(source) || source.includes('/') ? undefined : source;
}

function semanticErrors(compose) {
  const errors = [];
  const services = isObject(compose.services) ? compose.services : {};
  const declared = (section) => new Set(isObject(compose[section]) ? Object.keys(compose[section]) : []);
  const volumes = declared('volumes');
  const networks = declared('networks');
  const secrets = declared('secrets');
  const configs = declared('configs');

  walkStrings(compose, '', (text, path) => {
    for (const problem of interpolationErrors(text)) errors.push(`${path}: ${problem}`);
  });

  if (Object.keys(services).length === 0) errors.push('services: no service defined');
  for (const [name, service] of Object.entries(services)) {
    if (!isObject(service)) continue;
    const at = `services.${name}`;
    if (service.image === undefined && service.build === undefined)
      errors.push(`${at}: has neither "image" nor "build"`);

    const dependsOn = service.depends_on ?? [];
    const conditions = Array.isArray(dependsOn)
      ? Object.fromEntries(dependsOn.map((dep) => [dep, 'service_started']))
      : Object.fromEntries(Object.entries(dependsOn).map(([dep, spec]) => [dep, spec?.condition]));
    for (const [dep, condition] of Object.entries(conditions)) {
      if (dep === name) errors.push(`${at}.depends_on: a service cannot depend on itself`);
      else if (!(dep in services)) errors.push(`${at}.depends_on: unknown service "${dep}"`);
      else if (condition === 'service_healthy') {
        const check = services[dep]?.healthcheck;
        const disabled = !check || check.disable === true || (Array.isArray(check.test) && check.test[0] === 'NONE');
        if (disabled)
          errors.push(`${at}.depends_on.${dep}: waits for service_healthy but "${dep}" defines no healthcheck`);
      }
    }

    for (const entry of service.volumes ?? []) {
      const volume = namedVolume(entry);
      if (volume !== undefined && !volumes.has(volume))
        errors.push(`${at}.volumes: named volume "${volume}" is not declared under top-level "volumes"`);
    }
    for (const network of namesOf(service.networks)) {
      if (network !== 'default' && !networks.has(network))
        errors.push(`${at}.networks: network "${network}" is not declared under top-level "networks"`);
    }
    for (const secret of namesOf(service.secrets)) {
      if (!secrets.has(secret))
        errors.push(`${at}.secrets: secret "${secret}" is not declared under top-level "secrets"`);
    }
    for (const config of namesOf(service.configs)) {
      if (!configs.has(config))
        errors.push(`${at}.configs: config "${config}" is not declared under top-level "configs"`);
    }
  }

  // This project's own rule: the service starts only once PostgreSQL answers (migrations run at start-up).
  if (!('api' in services)) errors.push('services.api: missing (the blog service)');
  if (!('db' in services)) errors.push('services.db: missing (the PostgreSQL server)');
  if ('api' in services && 'db' in services) {
    const dependsOn = services.api?.depends_on;
    if (!isObject(dependsOn) || dependsOn.db?.condition !== 'service_healthy') {
      errors.push('services.api.depends_on: must wait for db with "condition: service_healthy"');
    }
  }
  return errors;
}

// ---- optional: docker compose itself ---------------------------------------------------------
function dockerComposeConfig() {
  const probe = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) return undefined; // no docker compose here: skip
  // A placeholder only for this check, so ${JWT_SECRET:?…} does not stop `config`.
  const env = { ...process.env, JWT_SECRET: process.env.JWT_SECRET || 'x'.repeat(48) };
  const run = spawnSync('docker', ['compose', '-f', file, 'config', '-q'], { env, encoding: 'utf8' });
  if (run.status !== 0)
    fail([`docker compose config -q failed:`, ...(run.stderr || run.stdout || '').trim().split('\n')]);
  return 'docker compose config -q passed';
}

// ---- main ------------------------------------------------------------------------------------
const { schema, source } = loadSchema();
const validate = compileSchema(schema);

const document = parseDocument(readFileSync(file, 'utf8'), { merge: true, uniqueKeys: true, prettyErrors: true });
if (document.errors.length > 0)
  fail([`${shown} is not valid YAML:`, ...document.errors.map((e) => e.message.split('\n')[0].replace(/:$/, ''))]);
const compose = document.toJS({ maxAliasCount: 100 });
if (!isObject(compose)) fail(`${shown}: the top level must be a mapping`);

if (!validate(compose)) {
  const messages = [...new Set(validate.errors.map(describe))];
  fail([`${shown} does not match the compose-spec schema (${source}):`, ...messages.map((m) => `  ${m}`)]);
}

const problems = semanticErrors(compose);
if (problems.length > 0) fail([`${shown} is invalid:`, ...problems.map((m) => `  ${m}`)]);

const docker = dockerComposeConfig();
process.stdout.write(`compose: ${shown} is valid (compose-spec schema ${source}${docker ? `; ${docker}` : ''})\n`);

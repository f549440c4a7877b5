#!/usr/bin/env node
// Validates the Kubernetes manifests against the Kubernetes OpenAPI schemas, offline:
//
//   node scripts/validate-k8s.mjs [directory]     (default: deploy/k8s)
//
// Every document of every *.yaml file (kustomization.yaml aside) is built as its model from the
// `kubernetes-models` package (one class per apiVersion/kind, generated from the Kubernetes API's
// schemas) and validated with it: types, enums and required fields. Unknown fields are not
// reported (the Kubernetes schemas allow them; the API server's field validation rejects them).
// kustomization.yaml must list only files that exist.
//
// Exit status: 0 valid, 1 invalid, 2 could not check (missing package or directory).

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = resolve(repoRoot, process.argv[2] ?? 'deploy/k8s');

let parseAllDocuments;
try {
  ({ parseAllDocuments } = await import('yaml'));
  await import('kubernetes-models/v1/Service');
} catch (error) {
  process.stderr.write(
    `k8s: cannot load "yaml" / "kubernetes-models" (devDependencies): run npm ci (${error.message})\n`,
  );
  process.exit(2);
}
if (!existsSync(dir)) {
  process.stderr.write(`k8s: no directory ${dir}\n`);
  process.exit(2);
}

const errors = [];
let checked = 0;
const files = readdirSync(dir)
  .filter((f) => /\.ya?ml$/.test(f))
  .sort();
for (const file of files) {
  const path = join(dir, file);
  const name = relative(repoRoot, path);
  const documents = parseAllDocuments(readFileSync(path, 'utf8'), { uniqueKeys: true });
  for (const [index, document] of documents.entries()) {
    if (document.errors.length > 0) {
      errors.push(`${name}#${index}: ${document.errors.map((e) => e.message).join('; ')}`);
      continue;
    }
    const object = document.toJS();
    if (object === null || object === undefined) continue;
    if (file === 'kustomization.yaml') {
      for (const resource of object.resources ?? []) {
        if (!existsSync(join(dir, resource))) errors.push(`${name}: resource ${resource} does not exist`);
      }
      continue;
    }
    const { apiVersion, kind } = object;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      errors.push(`${name}#${index}: apiVersion and kind are required`);
      continue;
    }
    let Model;
    try {
      Model = (await import(`kubernetes-models/${apiVersion}/${kind}`))[kind];
    } catch {
      errors.push(`${name}#${index}: unknown apiVersion/kind ${apiVersion} ${kind}`);
      continue;
    }
    try {
      new Model(object).validate();
      checked += 1;
    } catch (error) {
      errors.push(`${name}#${index} (${kind} ${object.metadata?.name ?? '?'}): ${error.message}`);
    }
  }
}

if (errors.length > 0) {
  process.stderr.write(`k8s: ${errors.length} problem(s)\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(
  `k8s: ${checked} objects in ${files.length} files of ${relative(repoRoot, dir)} match the Kubernetes schemas\n`,
);

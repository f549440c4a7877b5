// Summarises a V8 .cpuprofile (from `npm run bench -- --profile`): self time by package and by
// function, so the Nest/TypeORM/Express share of a request is visible without a viewer.
// Usage: node bench/profile-summary.mjs <file.cpuprofile> [top=25]
import { readFileSync } from 'node:fs';

const [file, topText = '25'] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topText);
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map();
for (let i = 0; i < profile.samples.length; i += 1) {
  const dt = profile.timeDeltas[i] ?? 0;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
}
// Idle time is when the service waited (e.g. while the baseline was measured): left out.
const idle = new Set(
  profile.nodes.filter((n) => ['(idle)', '(program)'].includes(n.callFrame.functionName)).map((n) => n.id),
);
for (const id of idle) selfUs.delete(id);
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
const packageOf = (url) => {
  if (!url) return '(native/v8)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  if (url.startsWith('node:')) return 'node:*';
  return url.includes('/dist/') ? 'service (dist)' : url;
};
const packages = new Map();
const functions = new Map();
for (const [id, us] of selfUs) {
  const { callFrame } = byId.get(id);
  const pkg = packageOf(callFrame.url);
  packages.set(pkg, (packages.get(pkg) ?? 0) + us);
  const key = `${callFrame.functionName || '(anonymous)'} ${pkg}:${callFrame.lineNumber + 1}`;
  functions.set(key, (functions.get(key) ?? 0) + us);
}
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`);
  }
};
// Inclusive: a package counts once per sample if any frame of the stack is its.
const inclusive = new Map();
for (const [id, us] of selfUs) {
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) seen.add(packageOf(byId.get(at).callFrame.url));
  for (const pkg of seen) inclusive.set(pkg, (inclusive.get(pkg) ?? 0) + us);
}
console.log(`busy time: ${(total / 1e6).toFixed(1)} s`);
print('self time by package', packages);
print('inclusive time by package (on the stack)', inclusive);
print('self time by function', functions);

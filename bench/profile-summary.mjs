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
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
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
print('self time by package', packages);
print('self time by function', functions);

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import satisfies from 'semver/functions/satisfies';

/** The Node.js versions the service runs on: package.json's `engines.node`, read from the package (src/ or dist/). */
export const SUPPORTED_NODE = (
  JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { engines: { node: string } }
).engines.node;

/** Whether `version` (`process.versions.node`, e.g. `22.13.0`) satisfies {@link SUPPORTED_NODE}. */
export function isSupportedNode(version: string): boolean {
  return satisfies(version, SUPPORTED_NODE);
}

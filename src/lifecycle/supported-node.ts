/** The Node.js versions the service runs on: package.json's `engines.node` (a repository test keeps them equal). */
export const SUPPORTED_NODE = '^22.13.0 || >=24.11.0';

/** Whether `version` (`process.versions.node`, e.g. `22.13.0`) satisfies {@link SUPPORTED_NODE}. */
export function isSupportedNode(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return (major === 22 && minor >= 13) || (major === 24 && minor >= 11) || major > 24;
}

import { isSupportedNode, SUPPORTED_NODE } from './supported-node';

// Imported first by main.ts: on an unsupported Node.js, start-up ends here with one line, before any module loads.
if (!isSupportedNode(process.versions.node)) {
  process.stderr.write(
    `Node.js ${process.version} is not supported: run the service on Node.js ${SUPPORTED_NODE} (package.json engines)\n`,
  );
  process.exit(1);
}

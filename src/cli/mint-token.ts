import { parseArgs } from 'node:util';
import { loadConfiguration } from '../config/configuration';
import { loadEnvFile } from '../config/environment';
import { mintToken, MintTokenOptions } from '../auth/token-minter';

// `npm run token -- --sub alice [--scope blogs:admin] [--ttl 1h]`: prints a token signed with the
// configured JWT_SECRET (from the environment or .env), for development and tests.
const USAGE = 'usage: npm run token -- --sub <subject> [--scope "<scope …>"] [--ttl 1h]';

function main(): number {
  loadEnvFile();
  const { values } = parseArgs({
    options: {
      sub: { type: 'string' },
      scope: { type: 'string' },
      ttl: { type: 'string', default: '1h' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.sub) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (!process.env.JWT_SECRET) {
    process.stderr.write(
      'JWT_SECRET is not set: a token needs the secret the service verifies with. Set it in the ' +
        'environment or .env (a service started without one logs its own token at start-up).\n',
    );
    return 2;
  }
  const config = loadConfiguration(process.env).auth;
  // Seconds, or a duration such as 15m; jsonwebtoken rejects a malformed one with a clear message.
  const ttl = /^[0-9]+$/.test(values.ttl) ? Number(values.ttl) : (values.ttl as MintTokenOptions['ttl']);
  process.stdout.write(
    `${mintToken({ ...config.jwt, secret: process.env.JWT_SECRET }, { sub: values.sub, scope: values.scope, ttl })}\n`,
  );
  return 0;
}

try {
  process.exitCode = main();
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}

import { adminQuery, E2E_ENV } from './test-database';

// Runs once before the e2e workers start (they inherit this process's environment): with
// DATABASE_URL set, each test file gets a fresh database on that server, named with this run's
// prefix; without it, each file gets a fresh embedded database.
export default async function globalSetup(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    delete process.env[E2E_ENV.serverUrl];
    return;
  }
  await adminQuery(serverUrl, 'SELECT 1'); // fail fast, with the driver's message, if unreachable
  process.env[E2E_ENV.serverUrl] = serverUrl;
  process.env[E2E_ENV.prefix] = `blog_e2e_${Date.now()}`;
}

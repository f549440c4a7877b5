import type { INestApplication, Type } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Test, TestingModuleBuilder } from '@nestjs/testing';
import { Logger as PinoNestLogger } from 'nestjs-pino';
import { sign, SignOptions } from 'jsonwebtoken';
import { existsSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { AppModule } from '../../src/app.module';
import { APP_OPTIONS, setupApp } from '../../src/app.setup';
import { mintToken, MintTokenOptions } from '../../src/auth/token-minter';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { ServiceProcess } from './service-process';
import { createTestDatabase, TestDatabase } from './test-database';

/** The HS256 secret the e2e apps verify with (48 bytes). */
export const TEST_JWT_SECRET = 'e2e-test-secret-0123456789abcdefghijklmnopqrstuv';

/** Configuration variables; `undefined` removes one. */
type Env = Readonly<Record<string, string | undefined>>;

/**
 * With `TEST_SERVICE_NODE=<path of a node binary>`, {@link createTestApp} starts the built service (`dist/main.js`)
 * with that node instead of booting the app in-process; jest.config.js then runs only the HTTP-only specs.
 */
const SERVICE_NODE = process.env.TEST_SERVICE_NODE || undefined;
const BUILT_MAIN = resolve(__dirname, '..', '..', 'dist', 'main.js');

/** A running app for one test file, talking HTTP through supertest. */
export interface TestApp {
  /** The in-process app (throws under `TEST_SERVICE_NODE`). */
  readonly app: INestApplication;
  /** supertest bound to the app's HTTP server. */
  readonly http: ReturnType<typeof request>;
  /** The app's DataSource, to check what was stored (throws under `TEST_SERVICE_NODE`). */
  readonly dataSource: DataSource;
  /** Makes the app listen on a free port of 127.0.0.1 (once) and returns that port. */
  listen(): Promise<number>;
  readonly database: TestDatabase;
  /** A valid token for `sub` (1 h, plus `scope` when given), signed with the app's key. */
  token(sub: string, options?: Partial<Omit<MintTokenOptions, 'sub'>>): string;
  /** Signs arbitrary claims with the test secret (or `key`), for the JWT failure cases. */
  sign(claims: object, options?: SignOptions, key?: string): string;
  /** Closes the app; also drops the database unless `keepDatabase`. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

/** How {@link createTestApp} builds the app, beyond its configuration. */
interface TestAppOptions {
  /** Changes the testing module before it is compiled, e.g. to capture the log destination. */
  readonly configure?: (builder: TestingModuleBuilder) => TestingModuleBuilder;
  /** Modules imported beside `AppModule`, e.g. a feature that only the spec has. */
  readonly imports?: readonly Type[];
  /** Route Nest's logs (`Logger`) to pino as `main.ts` does, instead of switching them off. */
  readonly pinoLogger?: boolean;
}

/**
 * Boots the real `AppModule` with the production global setup (`setupApp`) on a fresh database
 * (or on `database`, to share one between apps of the same file, started one after another).
 *
 * @param env - configuration variables for this app, on top of the test defaults
 *   (`NODE_ENV=test`, `JWT_SECRET=TEST_JWT_SECRET`, `JOBS_ENABLED=false`); `undefined` removes a variable.
 */
export async function createTestApp(
  env: Env = {},
  database?: TestDatabase,
  options: TestAppOptions = {},
): Promise<TestApp> {
  const db = database ?? (await createTestDatabase());
  const config: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    DATABASE_URL: undefined,
    DATA_DIR: undefined,
    // The job library's workers run only in the specs that test them.
    JOBS_ENABLED: 'false',
    ...db.env,
    ...env,
  };
  const key = { secret: config.JWT_SECRET ?? '', issuer: config.JWT_ISSUER, audience: config.JWT_AUDIENCE };
  const tokens = {
    database: db,
    token: (sub: string, options: Partial<Omit<MintTokenOptions, 'sub'>> = {}) =>
      mintToken(key, { ttl: '1h', ...options, sub }),
    sign: (claims: object, options: SignOptions = {}, secret = key.secret) =>
      sign(claims, secret, { algorithm: 'HS256', ...options }),
  };
  if (SERVICE_NODE) return Object.assign(await startBuiltService(SERVICE_NODE, config, db, options), tokens);
  const app = await withEnv(config, async () => {
    const builder = Test.createTestingModule({ imports: [AppModule, ...(options.imports ?? [])] });
    const moduleRef = await (options.configure?.(builder) ?? builder).compile();
    const nest = moduleRef.createNestApplication<NestExpressApplication>(APP_OPTIONS);
    setupApp(nest);
    nest.useLogger(options.pinoLogger ? nest.get(PinoNestLogger) : false);
    try {
      await nest.init();
    } catch (error) {
      // What started (the pool, its DATA_DIR lock, PGlite) stops before the database goes and the file ends.
      await nest.close().catch(() => undefined);
      if (!database) await db.drop();
      throw error;
    }
    return nest;
  });
  return {
    app,
    http: request(app.getHttpServer()),
    dataSource: app.get(DataSource),
    ...tokens,
    listen: async () => {
      const server: Server = app.getHttpServer();
      if (!server.listening) await app.listen(0, '127.0.0.1');
      return (server.address() as AddressInfo).port;
    },
    close: async ({ keepDatabase = false } = {}) => {
      await app.close();
      if (!keepDatabase) await db.drop();
    },
  };
}

/** Under `TEST_SERVICE_NODE`: `dist/main.js` started with that node and `config` (plus a free PORT), live, spoken to over HTTP. */
async function startBuiltService(
  node: string,
  config: Record<string, string | undefined>,
  db: TestDatabase,
  options: TestAppOptions,
): Promise<Omit<TestApp, 'database' | 'token' | 'sign'>> {
  if (options.configure || options.imports || options.pinoLogger)
    throw new Error('TEST_SERVICE_NODE: this spec changes the in-process app, which the built service has not');
  if (db.kind !== 'postgres')
    throw new Error('TEST_SERVICE_NODE: the built service runs against PostgreSQL (DATABASE_URL)');
  if (!existsSync(BUILT_MAIN))
    throw new Error(`TEST_SERVICE_NODE runs the built service: ${BUILT_MAIN} is missing (npm run build)`);
  let service: ServiceProcess;
  for (let attempt = 1; ; attempt += 1) {
    // RATE_LIMIT_ENABLED as the spec sets it (ServiceProcess would turn it off when absent).
    service = await ServiceProcess.start(
      BUILT_MAIN,
      { ...config, RATE_LIMIT_ENABLED: config.RATE_LIMIT_ENABLED },
      node,
    );
    try {
      await service.waitUntilLive();
      break;
    } catch (error) {
      service.kill();
      // Another process bound the free port first (a spec file in another worker): once more, on another port.
      if (attempt < 3 && config.PORT === undefined && service.output().includes('EADDRINUSE')) continue;
      await db.drop();
      throw error;
    }
  }
  // The specs' own reads and writes of the database go through a DataSource of this process on the service's database.
  const dataSource = new DataSource(buildDataSourceOptions({ url: db.env.DATABASE_URL, dataDir: '' }));
  await dataSource.initialize();
  return {
    get app(): INestApplication {
      throw new Error('TEST_SERVICE_NODE: this spec needs the in-process app (t.app), which the built service is not');
    },
    dataSource,
    http: request(`http://127.0.0.1:${service.port}`),
    listen: async () => service.port,
    close: async ({ keepDatabase = false } = {}) => {
      if (dataSource.isInitialized) await dataSource.destroy();
      service.signal('SIGTERM');
      const exit = await Promise.race([service.exited, new Promise((done) => setTimeout(done, 15_000).unref())]);
      if (exit === undefined) service.kill();
      if (!keepDatabase) await db.drop();
    },
  };
}

/** How {@link useTestApp} runs its app, beyond {@link TestAppOptions}. */
interface UseTestAppOptions extends TestAppOptions {
  /** A database shared with other apps of the file (see {@link useTestDatabase}); the app leaves it in place. */
  readonly database?: () => TestDatabase;
}

/**
 * Runs one app for the enclosing `describe` (or file): started in `beforeAll`, closed in
 * `afterAll`. The handle's members are valid inside tests and hooks registered after this call.
 *
 * @param env - as for {@link createTestApp}; a function when a value is only known once earlier
 *   `beforeAll` hooks ran (e.g. the port of a server the test starts).
 */
export function useTestApp(env: Env | (() => Env) = {}, options: UseTestAppOptions = {}): TestApp {
  let current: TestApp | undefined;
  let starting: Promise<TestApp> | undefined;
  const started = (): TestApp => {
    if (!current) throw new Error('useTestApp: the app runs only between its beforeAll and afterAll');
    return current;
  };
  let shared: TestDatabase | undefined;
  beforeAll(async () => {
    shared = options.database?.();
    if (shared) appsOn.set(shared, (appsOn.get(shared) ?? 0) + 1);
    starting = createTestApp(typeof env === 'function' ? env() : env, shared, options);
    current = await starting;
  });
  afterAll(async () => {
    // A start that outlived beforeAll's timeout is awaited, so that its app too closes before its database goes.
    const app = current ?? (await starting?.catch(() => undefined));
    current = undefined;
    starting = undefined;
    await app?.close({ keepDatabase: shared !== undefined });
    if (shared) appsOn.set(shared, (appsOn.get(shared) ?? 1) - 1);
  });
  return {
    get app() {
      return started().app;
    },
    get http() {
      return started().http;
    },
    get dataSource() {
      return started().dataSource;
    },
    get database() {
      return started().database;
    },
    listen: () => started().listen(),
    token: (sub, tokenOptions) => started().token(sub, tokenOptions),
    sign: (claims, signOptions, key) => started().sign(claims, signOptions, key),
    close: async (closeOptions) => {
      const app = started();
      current = undefined; // closed early: afterAll has nothing left to close
      starting = undefined;
      await app.close(closeOptions);
      if (shared) appsOn.set(shared, (appsOn.get(shared) ?? 1) - 1);
      shared = undefined;
    },
  };
}

/** How many apps of {@link useTestApp} run on each shared database. */
const appsOn = new WeakMap<TestDatabase, number>();

/**
 * One database for the apps of a file that run one after another: created in `beforeAll`, dropped in `afterAll`.
 * Its apps go in nested `describe` blocks: jest runs a block's `afterAll` hooks in the order declared, so an app of the
 * same block would still hold the database (embedded: its `DATA_DIR` and lock) when it is dropped; that throws.
 */
export function useTestDatabase(): () => TestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    if (database && (appsOn.get(database) ?? 0) > 0)
      throw new Error('useTestDatabase: an app still runs on the database; declare it in a nested describe');
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error('useTestDatabase: the database exists only between its beforeAll and afterAll');
    return database;
  };
}

/** Runs `fn` with `vars` set in `process.env` (undefined deletes), then restores the environment. */
async function withEnv<T>(vars: Env, fn: () => Promise<T>): Promise<T> {
  const saved = { ...process.env };
  for (const [name, value] of Object.entries(vars)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  try {
    return await fn();
  } finally {
    process.env = saved;
  }
}

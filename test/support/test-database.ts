import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import { buildDataSourceOptions } from '../../src/database/data-source-options';
import { applySessionSettings } from './pgbouncer';

/** Environment keys the global setup hands to the test workers. */
export const E2E_ENV = {
  /** `postgres://…` of the server the run uses, or unset for the embedded database. */
  serverUrl: 'E2E_SERVER_URL',
  /** Prefix of every database this run creates, so the teardown can drop them all. */
  prefix: 'E2E_DATABASE_PREFIX',
  /** `postgres://…` of the PgBouncer in front of that server when the run goes through one (`TEST_VIA_PGBOUNCER=1`). */
  pgBouncerUrl: 'E2E_PGBOUNCER_URL',
  /** Comma-separated `postgres://…` of the server's streaming replicas when the run has them (`TEST_WITH_REPLICA=1`). */
  readServerUrls: 'E2E_READ_SERVER_URLS',
  /** An embedded data directory with every migration applied, which each embedded test database starts as a copy of. */
  embeddedTemplate: 'E2E_EMBEDDED_TEMPLATE',
  /** An embedded data directory initialised (`initdb`) with no migration, which each empty one starts as a copy of. */
  embeddedEmptyTemplate: 'E2E_EMBEDDED_EMPTY_TEMPLATE',
  /** A database on the run's server with every migration applied, which each test database is created from. */
  serverTemplate: 'E2E_SERVER_TEMPLATE',
} as const;

/** Where one test file's app keeps its data; `drop` removes it. */
export interface TestDatabase {
  /**
   * Environment for the app: `DATABASE_URL` (and, through PgBouncer, `DATABASE_POOLER`, `DATABASE_MIGRATION_URL`;
   * with replicas, `DATABASE_READ_URLS`) or `DATA_DIR`.
   */
  readonly env: Readonly<Record<string, string>>;
  readonly kind: 'postgres' | 'embedded';
  drop(): Promise<void>;
}

/**
 * Runs `fn` on a DataSource of `options`, initialized for it and destroyed after whatever happened, so that it is
 * closed (embedded: its `DATA_DIR` lock released, PGlite closed) before the test drops the database; `fn`'s result.
 */
export async function withDataSource<T>(
  options: DataSourceOptions,
  fn: (dataSource: DataSource) => Promise<T>,
): Promise<T> {
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    return await fn(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

/** Replaces the database name in a `postgres://` URL. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A fresh database for one test file: a new database on the run's PostgreSQL server made from the run's migrated one
 * ({@link createServerTemplate}), or a new embedded data directory when the run has no server: a copy of the run's
 * migrated one ({@link createEmbeddedTemplates}); with `empty`, either starts empty (embedded: a copy of the run's
 * initialised one) and the app migrates it. When the run
 * goes through PgBouncer, the app reaches the database through it, set up as docs/operations.md says; when it has
 * replicas, the app reads from them (replication is synchronous there: they have the database once it is created).
 */
export async function createTestDatabase({ empty = false }: { empty?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = process.env[E2E_ENV.serverUrl];
  if (!serverUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), 'blog-e2e-'));
    const template = process.env[empty ? E2E_ENV.embeddedEmptyTemplate : E2E_ENV.embeddedTemplate];
    if (template) cpSync(template, dataDir, { recursive: true });
    return {
      kind: 'embedded',
      env: { DATA_DIR: dataDir },
      drop: async () => rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const prefix = process.env[E2E_ENV.prefix] ?? 'blog_e2e';
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const template = process.env[E2E_ENV.serverTemplate];
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"${!empty && template ? ` TEMPLATE "${template}"` : ''}`);
  const pgBouncerUrl = process.env[E2E_ENV.pgBouncerUrl];
  if (pgBouncerUrl) await applySessionSettings(withDatabase(serverUrl, 'postgres'), name);
  const readServerUrls = process.env[E2E_ENV.readServerUrls];
  return {
    kind: 'postgres',
    env: {
      ...(pgBouncerUrl
        ? {
            DATABASE_URL: withDatabase(pgBouncerUrl, name),
            DATABASE_POOLER: 'pgbouncer',
            DATABASE_MIGRATION_URL: withDatabase(serverUrl, name),
          }
        : { DATABASE_URL: withDatabase(serverUrl, name) }),
      ...(readServerUrls && {
        DATABASE_READ_URLS: readServerUrls
          .split(',')
          .map((url) => withDatabase(url, name))
          .join(','),
      }),
    },
    drop: async () => {
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/**
 * For a spec whose spawned services need a database but are not about a fresh one: `create()` makes one
 * ({@link createTestDatabase}: the run's engine, migrated, so a start-up neither runs initdb nor migrates); `afterAll`
 * drops them all.
 */
export function useTestDatabases(): { create(): Promise<TestDatabase> } {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const database of made.splice(0)) await database.drop();
  });
  return {
    async create() {
      const database = await createTestDatabase();
      made.push(database);
      return database;
    },
  };
}

/** Runs one statement on the server's `postgres` database. */
export async function adminQuery(serverUrl: string, sql: string): Promise<{ rows: Record<string, unknown>[] }> {
  const client = new Client({ connectionString: withDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Embedded data directories for {@link createTestDatabase} to copy, made once per run: `empty` initialised (PGlite's
 * `initdb`, seconds) with no migration, `migrated` a copy of it with every migration applied; the caller removes them.
 */
export async function createEmbeddedTemplates(): Promise<{ empty: string; migrated: string }> {
  const open = async (dataDir: string, migrate: boolean): Promise<void> => {
    const dataSource = new DataSource(buildDataSourceOptions({ url: undefined, dataDir }));
    await dataSource.initialize();
    try {
      if (migrate) await dataSource.runMigrations();
    } finally {
      await dataSource.destroy();
    }
  };
  const empty = mkdtempSync(join(tmpdir(), 'blog-e2e-template-empty-'));
  await open(empty, false);
  const migrated = mkdtempSync(join(tmpdir(), 'blog-e2e-template-'));
  cpSync(empty, migrated, { recursive: true });
  await open(migrated, true);
  return { empty, migrated };
}

/**
 * A database `name` on `serverUrl`'s server with every migration applied, for {@link createTestDatabase} to make each
 * test database from (`CREATE DATABASE … TEMPLATE`, a file copy: no migration per test file); no session stays on it.
 * The teardown drops it with the run's other databases.
 */
export async function createServerTemplate(serverUrl: string, name: string): Promise<string> {
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const dataSource = new DataSource(buildDataSourceOptions({ url: withDatabase(serverUrl, name), dataDir: '' }));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
  } finally {
    await dataSource.destroy();
  }
  return name;
}

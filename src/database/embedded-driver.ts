import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { lockSync } from 'proper-lockfile';
import { PGliteDriver } from 'typeorm-pglite';
import { SerialPGlitePool } from './serial-pglite-pool';

/** The shape TypeORM's Postgres driver needs from its `driver` option: a `pg`-style pool class. */
export interface PgDriverModule {
  readonly Pool: typeof SerialPGlitePool;
}

/** Name of the lock directory kept inside `DATA_DIR` while a process has the database open. */
export const DATA_DIR_LOCK_NAME = 'blog-service.lock';

/** A lock left by a process that died without releasing it is taken over after this many ms. */
export const DATA_DIR_LOCK_STALE_MS = 10_000;

/**
 * `DATA_DIR` is held by another process (a running service or a migration command). PGlite is a
 * single-process database: two processes on one directory would overwrite each other's writes.
 * `message` is one line naming the directory.
 */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

/**
 * Prepares the embedded PostgreSQL (PGlite, WebAssembly) stored under `dataDir` and returns a
 * `pg`-compatible driver for TypeORM's `postgres` driver, so the same entity, migrations and
 * queries run on it as on a PostgreSQL server.
 *
 * PGlite is one session per process: `typeorm-pglite` keeps it process-wide, opened on the first
 * connection and closed when the DataSource is destroyed. Leases are serialised by
 * {@link SerialPGlitePool}. The directory is locked for this process (`proper-lockfile`, a lock
 * directory refreshed every 5 s) from now until the pool is closed or the process exits.
 *
 * @param dataDir - directory of the database files; created if missing. A new directory takes a
 *   few seconds to initialise; later starts reuse it.
 * @throws DataDirInUseError when another live process holds the directory.
 */
export function createEmbeddedDriver(dataDir: string): PgDriverModule {
  mkdirSync(dataDir, { recursive: true });
  const lock = new DataDirLock(dataDir);
  // Taken now so that a second process fails at once, before any start-up work.
  lock.acquire();
  // The constructor only records the options of the process-wide PGlite instance (and the
  // boolean serialiser TypeORM needs); its own pool is replaced by the serialising one.
  new PGliteDriver({ dataDir });
  return { Pool: SerialPGlitePool.holding(lock) };
}

/**
 * The inter-process lock on one `DATA_DIR` (`proper-lockfile`: a lock directory inside it,
 * refreshed every 5 s, taken over when not refreshed for {@link DATA_DIR_LOCK_STALE_MS}).
 * `acquire` is idempotent, so each pool a DataSource creates can (re)take it: TypeORM destroys a
 * DataSource whose initialisation failed, which ends its pool and releases the lock, and
 * `@nestjs/typeorm` then retries with a new DataSource on the same options.
 */
export class DataDirLock {
  private release?: () => void;

  /**
   * @param dataDir - the directory to lock.
   * @param options.staleMs - how long a lock may go unrefreshed before another process takes it
   *   over (refreshed every `staleMs / 2`).
   * @param options.onLost - called when this process finds it no longer holds the lock (it was
   *   frozen for longer than `staleMs` and another process took the directory over). Default:
   *   {@link exitOnLostLock}, since two processes writing one PGlite directory lose data.
   */
  constructor(
    readonly dataDir: string,
    private readonly options: { readonly staleMs?: number; readonly onLost?: (error: Error) => void } = {},
  ) {}

  /** @throws DataDirInUseError when another live process holds the directory. */
  acquire(): void {
    if (this.release) return;
    const lockfilePath = join(this.dataDir, DATA_DIR_LOCK_NAME);
    try {
      this.release = lockSync(this.dataDir, {
        lockfilePath,
        stale: this.options.staleMs ?? DATA_DIR_LOCK_STALE_MS,
        onCompromised: (error: Error) => {
          this.release = undefined;
          (this.options.onLost ?? exitOnLostLock)(
            new Error(`lost the lock on DATA_DIR ${this.dataDir}: ${error.message}`),
          );
        },
      });
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ELOCKED') {
        throw new DataDirInUseError(
          `DATA_DIR ${this.dataDir} is in use by another process (lock ${lockfilePath}); stop it first, ` +
            `or wait ${DATA_DIR_LOCK_STALE_MS / 1000} s if that process was killed`,
        );
      }
      throw error;
    }
  }

  /** Releases the lock if held; a lock already gone (taken over as stale) is not an error. */
  releaseIfHeld(): void {
    const release = this.release;
    this.release = undefined;
    try {
      release?.();
    } catch {
      // already released or taken over: nothing left to undo
    }
  }
}

/**
 * What a service does when it finds another process has taken its `DATA_DIR` over: log and exit
 * at once (status 1). Carrying on would let two processes write the same PGlite files and lose
 * acknowledged writes; a graceful shutdown would go on writing meanwhile. The orchestrator
 * restarts the service, which then waits for the directory like any second process.
 */
export function exitOnLostLock(error: Error): void {
  new Logger('Database').fatal(`${error.message}; exiting so that two processes never write it`);
  process.exit(1);
}

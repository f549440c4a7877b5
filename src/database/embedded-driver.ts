import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { lockSync } from 'proper-lockfile';
import { PGliteDriver } from 'typeorm-pglite';
import { SerialPGlitePool } from './serial-pglite-pool';

/** What TypeORM's Postgres driver needs from its `driver` option: a `pg`-style pool class. */
interface PgDriverModule {
  readonly Pool: typeof SerialPGlitePool;
}

/** Name of the lock directory kept inside `DATA_DIR` while a process has the database open. */
export const DATA_DIR_LOCK_NAME = 'blog-service.lock';

/** A lock left by a process that died without releasing it is taken over after this many ms. */
export const DATA_DIR_LOCK_STALE_MS = 10_000;

/** `DATA_DIR` is held by another live process; `message` is one line naming the directory. */
export class DataDirInUseError extends Error {
  override readonly name = 'DataDirInUseError';
}

/**
 * Locks `dataDir` (created if missing) until the pool closes, and returns the PGlite driver for TypeORM's `postgres`.
 * @throws DataDirInUseError when another live process holds the directory.
 */
export function createEmbeddedDriver(dataDir: string): PgDriverModule {
  mkdirSync(dataDir, { recursive: true });
  const lock = new DataDirLock(dataDir);
  // Taken now so that a second process fails before any start-up work.
  lock.acquire();
  // Only records the options of the process-wide PGlite instance; its pool is replaced below.
  new PGliteDriver({ dataDir });
  return { Pool: SerialPGlitePool.holding(lock) };
}

/** The inter-process lock on one `DATA_DIR` (a `proper-lockfile` directory inside it); `acquire` is idempotent. */
export class DataDirLock {
  private release?: () => void;

  /** @param options - `staleMs`: ms until a stale lock is taken over; `onLost`: default {@link exitOnLostLock}. */
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

/** Logs and exits with status 1 at once, with no graceful shutdown, when another process took `DATA_DIR` over. */
function exitOnLostLock(error: Error): void {
  new Logger('Database').fatal(`${error.message}; exiting so that two processes never write it`);
  process.exit(1);
}

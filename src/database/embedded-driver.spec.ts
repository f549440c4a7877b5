import { mkdirSync, mkdtempSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createEmbeddedDriver,
  DATA_DIR_LOCK_NAME,
  DATA_DIR_LOCK_STALE_MS,
  DataDirInUseError,
  DataDirLock,
} from './embedded-driver';

/** Ends a pool the way TypeORM does when its DataSource is destroyed. */
function endPool(Pool: ReturnType<typeof createEmbeddedDriver>['Pool']): Promise<void> {
  const pool = new Pool();
  return new Promise((resolve, reject) => pool.end((error: unknown) => (error ? reject(error) : resolve())));
}

describe('createEmbeddedDriver: the DATA_DIR lock', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = join(mkdtempSync(join(tmpdir(), 'blog-lock-spec-')), 'data');
  });

  afterEach(() => {
    rmSync(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('creates the directory and refuses a second holder with DataDirInUseError naming it', async () => {
    const { Pool } = createEmbeddedDriver(dataDir);
    try {
      expect(() => createEmbeddedDriver(dataDir)).toThrow(DataDirInUseError);
      expect(() => createEmbeddedDriver(dataDir)).toThrow(`DATA_DIR ${dataDir} is in use by another process`);
    } finally {
      await endPool(Pool);
    }
  });

  it('releases the directory when the pool is ended (the DataSource destroyed)', async () => {
    await endPool(createEmbeddedDriver(dataDir).Pool);
    const again = createEmbeddedDriver(dataDir);
    await endPool(again.Pool);
  });

  it('takes the lock again for a new pool after an earlier pool was ended (a retried DataSource)', async () => {
    const { Pool } = createEmbeddedDriver(dataDir);
    await endPool(Pool); // TypeORM destroys a DataSource whose initialisation failed
    const retried = new Pool(); // @nestjs/typeorm retries with a new DataSource on the same options
    try {
      expect(() => createEmbeddedDriver(dataDir)).toThrow(DataDirInUseError);
    } finally {
      await new Promise<void>((resolve, reject) =>
        retried.end((error: unknown) => (error ? reject(error) : resolve())),
      );
    }
  });

  it('takes over a lock left by a process that died (not refreshed for longer than the stale time)', async () => {
    const lockPath = join(dataDir, DATA_DIR_LOCK_NAME);
    mkdirSync(lockPath, { recursive: true });
    const past = new Date(Date.now() - DATA_DIR_LOCK_STALE_MS - 5_000);
    utimesSync(lockPath, past, past);
    await endPool(createEmbeddedDriver(dataDir).Pool);
  });

  it('does not take over a lock refreshed recently (a live holder)', () => {
    mkdirSync(join(dataDir, DATA_DIR_LOCK_NAME), { recursive: true });
    expect(() => createEmbeddedDriver(dataDir)).toThrow(DataDirInUseError);
  });

  it('reports a lock taken over by another process (this one was frozen past the stale time) to onLost', async () => {
    mkdirSync(dataDir, { recursive: true });
    const lost = jest.fn<void, [Error]>();
    const lock = new DataDirLock(dataDir, { staleMs: 2_000, onLost: lost });
    lock.acquire();
    try {
      // What the other process's take-over leaves: a lock directory that is not ours (new mtime).
      const lockPath = join(dataDir, DATA_DIR_LOCK_NAME);
      rmSync(lockPath, { recursive: true });
      mkdirSync(lockPath);
      const later = new Date(Date.now() + 60_000);
      utimesSync(lockPath, later, later);
      const deadline = Date.now() + 5_000;
      while (lost.mock.calls.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(lost).toHaveBeenCalledTimes(1);
      expect(lost.mock.calls[0][0].message).toContain(`lost the lock on DATA_DIR ${dataDir}`);
    } finally {
      lock.releaseIfHeld();
    }
  });
});

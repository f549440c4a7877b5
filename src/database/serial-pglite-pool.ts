import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';

type ConnectCallback = Parameters<PGlitePool['connect']>[0];
/** A lock held for the lifetime of a pool (see `DataDirLock`). */
interface PoolLock {
  acquire(): void;
  releaseIfHeld(): void;
}

/** What `PGlitePool.end()` calls once the instance is closed (its typing says only `Function`). */
type EndCallback = (error: unknown) => void;

/**
 * A `pg`-compatible pool over the one embedded PGlite session that lends it to one caller at a
 * time.
 *
 * PGlite has a single session, and `typeorm-pglite`'s pool hands that same session to every
 * caller: two concurrent TypeORM transactions would interleave their statements, and a rollback in
 * one would undo the other's work. Here each `connect()` waits until the previous lease is
 * released, so every query runner, and so every transaction, runs alone, exactly as with a
 * one-connection `pg` pool.
 */
export class SerialPGlitePool extends PGlitePool {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private leased = false;

  /** Connections of the pool, as `pg.Pool` counts them: the one session. */
  get totalCount(): number {
    return 1;
  }

  /** 1 while no caller holds the session, else 0 (as `pg.Pool#idleCount`). */
  get idleCount(): number {
    return this.leased ? 0 : 1;
  }

  /** Callers queued for the session (as `pg.Pool#waitingCount`). */
  get waitingCount(): number {
    return this.waiting;
  }

  override connect(callback: ConnectCallback): Promise<void> {
    let releaseLease!: () => void;
    const leaseEnded = new Promise<void>((resolve) => (releaseLease = resolve));
    const previous = this.tail;
    this.tail = previous.then(() => leaseEnded);
    this.waiting += 1;
    return previous.then(() => {
      this.waiting -= 1;
      this.leased = true;
      return super.connect((error, client) => {
        let released = false;
        const release = (): void => {
          if (released) return;
          released = true;
          this.leased = false;
          releaseLease();
        };
        if (error) release();
        callback(error, client, release);
      });
    });
  }

  /**
   * A subclass that holds `lock` while a pool exists: taken (again, if an earlier pool released
   * it) when TypeORM creates the pool, released when TypeORM ends it (DataSource destroyed).
   */
  static holding(lock: PoolLock): typeof SerialPGlitePool {
    return class extends SerialPGlitePool {
      constructor() {
        super();
        lock.acquire();
      }

      override end(callback: EndCallback): void {
        super.end((error: unknown) => {
          lock.releaseIfHeld();
          callback(error);
        });
      }
    };
  }
}

import { PGlitePool } from 'typeorm-pglite/dist/pglite-pool';

type ConnectCallback = Parameters<PGlitePool['connect']>[0];
interface PoolLock {
  acquire(): void;
  releaseIfHeld(): void;
}

type EndCallback = (error: unknown) => void;

/** A `pg`-compatible pool lending the one PGlite session to one caller at a time (docs/architecture.md). */
export class SerialPGlitePool extends PGlitePool {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;
  private leased = false;

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

  /** A subclass that takes `lock` when TypeORM creates the pool and releases it when TypeORM ends the pool. */
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

// Two SQLite connections of one process, one of which must not be starved of the write lock:
// the callback delivery thread's (workers/delivery-thread.ts) beside the service's. SQLite has no
// queue for its write lock: whoever asks at the moment it is free gets it. The service's group
// writer begins its next batch as soon as the last commits, so while it is busy another
// connection's BEGIN, retried after pauses, almost never finds the lock free (delivery fell ten
// times behind ingestion), and pauses that grow leave the lock idle once it is free. With turns,
// in memory both threads read:
// - the connection that asks (the delivery thread) says so before its BEGIN and, while the lock
//   is busy, sleeps until the other tells it the lock is free, then begins at once;
// - the one that yields (the service's) tells it so after each commit while it asks, and before
//   its own next BEGIN waits (asynchronously: its event loop goes on) until that transaction has
//   ended (a claim or a batch of outcomes, a few milliseconds), at most YIELD_MS.

/** The longest the yielding connection waits for the other's transaction before it begins anyway. */
export const YIELD_MS = 50;
/** The longest the asking connection sleeps for word that the lock is free before it tries again. */
const ASK_WAIT_MS = 20;

export type TurnRole = 'asks' | 'yields';

/** Atomics.waitAsync (Node.js 16 on; in TypeScript's library from ES2024). */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      cells: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false } | { async: true; value: Promise<unknown> };
  }
).waitAsync;

// The cells: whether the asking connection wants or holds the lock; whether the yielding one has
// let go of it since.
const ASKING = 0;
const FREE = 1;

export class WriteTurns {
  private readonly cells: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.cells = new Int32Array(buffer, 0, 2);
  }

  /** The memory the turns are kept in, for the connection on another thread. */
  get buffer(): SharedArrayBuffer {
    return this.cells.buffer as SharedArrayBuffer;
  }

  /** The asking connection: its write transaction is about to begin. */
  ask(): void {
    Atomics.store(this.cells, FREE, 0);
    Atomics.store(this.cells, ASKING, 1);
  }

  /**
   * The asking connection, its BEGIN answered busy: sleeps (blocking its thread) until the
   * yielding connection has let go of the lock, at most ASK_WAIT_MS.
   */
  awaitFree(): void {
    Atomics.wait(this.cells, FREE, 0, ASK_WAIT_MS);
    Atomics.store(this.cells, FREE, 0);
  }

  /** The asking connection: its write transaction has ended (or could not begin). */
  done(): void {
    Atomics.store(this.cells, ASKING, 0);
    Atomics.notify(this.cells, ASKING);
  }

  /** The yielding connection, after a commit or rollback: lets an asking connection begin. */
  letGo(): void {
    if (Atomics.load(this.cells, ASKING) === 0) return;
    Atomics.store(this.cells, FREE, 1);
    Atomics.notify(this.cells, FREE);
  }

  /** The yielding connection, before it begins a write transaction: waits while the other asks. */
  async yieldTo(): Promise<void> {
    if (Atomics.load(this.cells, ASKING) === 0) return;
    this.letGo();
    const waiting = waitAsync(this.cells, ASKING, 1, YIELD_MS);
    if (!waiting.async) return;
    // The wait's own timeout does not keep the event loop alive (with nothing else pending, the
    // process would end with this write unfinished): a timer bounds it instead.
    const ended = waiting.value;
    await new Promise<void>((resolve) => {
      const bound = setTimeout(resolve, YIELD_MS);
      void ended.then(() => {
        clearTimeout(bound);
        resolve();
      });
    });
  }
}

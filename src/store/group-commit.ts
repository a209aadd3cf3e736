import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import { openBatch } from './batch.js';
import { rerunOnConflict, retryable, statementCancelled } from './conflicts.js';
import type { Batch } from './batch.js';
import type { DirectStatements } from './direct-statements.js';
import type { Database as Schema } from './schema.js';

// Group commit. Writes that arrive together (the requests one turn of the event loop has parsed,
// or that queued while the previous batch ran) are applied in one database transaction, which
// commits once; only then is each of them acknowledged. One commit per batch instead of one per
// write is what bounds write throughput on PostgreSQL (a commit waits for the WAL flush) and
// saves SQLite a WAL append of the same hot pages per write.
//
// - A write that throws fails alone, with its own error, while the rest of its batch commits:
//   the batch is first run without savepoints (writes rarely fail); if one throws, it is rolled
//   back and run again with a savepoint around each write. A batch of one runs without.
// - A write is acknowledged (its promise resolves) only after the commit of its batch; when the
//   commit fails, every write of the batch fails with that error, as a lone transaction would.
// - When the batch transaction fails outside any write after it began (a connection lost before
//   the commit, a savepoint refused), nothing of it was committed, and each write is run again
//   alone. One that cannot begin (SQLite busy past SQLITE_BUSY_WAIT_MS) fails all its writes.
// - Writes are queued by group (the organisation). A batch runs its writes in group order, so
//   every batch, on every instance, locks balance rows in the same order and instances cannot
//   deadlock on them; a write that still loses a deadlock or a serialisation conflict is run
//   again alone after its batch, and alone again (conflicts.ts) while it loses one.
// - PostgreSQL: up to `lanes` batches run at once, and a batch takes the pending writes of every
//   group not already in another batch of this instance: an organisation's balance row is
//   locked by one transaction of the instance at a time (never two of its transactions waiting
//   for it), and organisations do not wait for each other's batches.
// - SQLite has one connection, hence one lane: a batch takes every pending write.
// - A batch transaction carries its batch (batch.ts), the one object where the store keeps what
//   a batch holds between its writes: several orders of one organisation update its balance row
//   once, and on SQLite its statements run on the driver directly.

export type Work<T> = (trx: Transaction<Schema>) => Promise<T>;

/** What the writer reports as it goes (the metrics of operations.md#group-commit). */
export interface GroupCommitObserver {
  /** A batch transaction ended: committed, or failed (begin or commit, every write with it). */
  batch(outcome: 'committed' | 'failed', writes: number): void;
  /** How long a write waited in the queue before its batch began. */
  queued(seconds: number): void;
  /**
   * A batch run again: with a savepoint around each write after one of them failed
   * ('savepoints'), or write by write in transactions of their own after the batch transaction
   * failed or a write lost a deadlock ('alone', once per write).
   */
  rerun(mode: 'savepoints' | 'alone'): void;
}

const NO_OBSERVER: GroupCommitObserver = {
  batch: () => undefined,
  queued: () => undefined,
  rerun: () => undefined,
};

export interface GroupCommitSettings {
  /** false: every write is its own transaction (GROUP_COMMIT=false). */
  readonly enabled: boolean;
  /** Most writes in one transaction (GROUP_COMMIT_MAX_BATCH). */
  readonly maxBatch: number;
  /** Batches that may run at once (transactions in flight); 1 on SQLite. */
  readonly lanes: number;
}

export interface GroupWriter {
  readonly settings: GroupCommitSettings;
  /**
   * Runs `work` in a write transaction, possibly shared with other writes; resolves with its
   * result once that transaction has committed, or rejects with the error `work` threw (its
   * writes rolled back, the others' kept) or the error of the commit.
   */
  run<T>(group: string, work: Work<T>): Promise<T>;
  /** Resolves when every write queued so far has been settled. */
  idle(): Promise<void>;
  /** Transactions committed or attempted for batches, and the writes they carried, so far. */
  stats(): { batches: number; writes: number };
  /** Writes waiting for a batch now (not yet taken into one). */
  waiting(): number;
  /** SQLite: the prepared statements its batches run on (direct-statements.ts). */
  readonly direct: DirectStatements | undefined;
}

export const DEFAULT_MAX_BATCH = 64;
/** PostgreSQL batches in flight at once, unless configured (GROUP_COMMIT_LANES). */
export const DEFAULT_LANES = 16;

interface Item {
  readonly group: string;
  readonly work: Work<unknown>;
  /** performance.now() when it was queued. */
  readonly queuedAt: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome =
  { kind: 'done'; value: unknown } | { kind: 'failed'; error: unknown } | { kind: 'again' };

/** How far a batch transaction got. */
type Progress = 'not begun' | 'begun' | 'applied';

const SAVEPOINT = sql.raw('group_commit_item');

interface Writer {
  readonly db: Kysely<Schema>;
  readonly observer: GroupCommitObserver;
  readonly direct: DirectStatements | undefined;
}

/**
 * A batch transaction: `body` runs the writes, then what they held in the batch is written, then
 * it commits. Resolves with the outcome of `body`.
 */
function inBatch<T>(
  w: Writer,
  body: (trx: Transaction<Schema>, batch: Batch) => Promise<T>,
  items: readonly Item[] = [],
): Promise<T> {
  return w.db.transaction().execute(async (trx) => {
    // SQLite: compiled statements of the batch run on the driver at once (direct-statements.ts).
    const batch = openBatch(trx, batchGroups(items), w.direct);
    try {
      const value = await body(trx, batch);
      await batch.flushAll(trx);
      return value;
    } finally {
      batch.close();
    }
  });
}

/**
 * The groups of a batch, in the order it runs them, for the batch: from three writes on, reading
 * the balance rows of every organisation of the batch in one statement costs fewer statements
 * than locking each with its first debit (ledger-repository.ts).
 */
function batchGroups(batch: readonly Item[]): string[] {
  if (batch.length < 3) return [];
  return [...new Set(batch.map((item) => item.group))];
}

/** One write in a transaction of its own, run again while it loses a deadlock (conflicts.ts). */
async function runAlone(w: Writer, item: Item): Promise<void> {
  try {
    item.resolve(await rerunOnConflict(() => inBatch(w, item.work)));
    w.observer.batch('committed', 1);
  } catch (error) {
    w.observer.batch('failed', 1);
    item.reject(error);
  }
}

async function rerunAlone(w: Writer, items: readonly Item[]): Promise<void> {
  for (const item of items) {
    w.observer.rerun('alone');
    await runAlone(w, item);
  }
}

/** Runs one write inside a savepoint of the batch transaction. Throws only when the savepoint does. */
async function runIsolated(trx: Transaction<Schema>, batch: Batch, item: Item): Promise<Outcome> {
  await sql`savepoint ${SAVEPOINT}`.execute(trx);
  const mark = batch.mark();
  let outcome: Outcome;
  try {
    const value = await item.work(trx);
    // Its queued rows go in inside its savepoint: if they fail, the write fails alone.
    await batch.settle(trx);
    outcome = { kind: 'done', value };
  } catch (error) {
    await sql`rollback to savepoint ${SAVEPOINT}`.execute(trx);
    batch.restore(mark);
    outcome = retryable(error) ? { kind: 'again' } : { kind: 'failed', error };
  }
  await sql`release savepoint ${SAVEPOINT}`.execute(trx);
  return outcome;
}

function settle(item: Item, outcome: Outcome): boolean {
  if (outcome.kind === 'done') item.resolve(outcome.value);
  else if (outcome.kind === 'failed') item.reject(outcome.error);
  return outcome.kind !== 'again';
}

/**
 * The batch with a savepoint around each write, after one of them failed in the first pass.
 *
 * A row another session holds (an operator's open transaction, a stalled instance) makes the
 * write that waits for it fail once the statement timeout cancels the wait (57014). The first pass
 * cannot tell which write that was: from three writes on, the first debit locks the balance rows
 * of every organisation of the batch in one statement (ledger-repository.ts). So this pass locks
 * each organisation's row with its own first debit, and only that organisation's writes wait for
 * it; once one of them is cancelled, the rest of its group do not wait in the batch again, but run
 * alone after it has committed. The other writes of the batch wait at most two timeouts, the first
 * pass's and this one's, however many writes the stuck organisation has in it. Those writes are
 * returned, for the writer to run alone once it has let the batch's other organisations go on.
 */
async function commitIsolated(w: Writer, batch: readonly Item[]): Promise<Item[]> {
  const outcomes: Outcome[] = [];
  const stuck = new Set<string>();
  let progress: Progress = 'not begun';
  w.observer.rerun('savepoints');
  try {
    await inBatch(w, async (trx, open) => {
      progress = 'begun';
      for (const item of batch) {
        if (stuck.has(item.group)) {
          outcomes.push({ kind: 'again' });
          continue;
        }
        const outcome = await runIsolated(trx, open, item);
        if (outcome.kind === 'failed' && statementCancelled(outcome.error)) stuck.add(item.group);
        outcomes.push(outcome);
      }
      progress = 'applied';
    });
  } catch (error) {
    await afterFailedCommit(w, batch, error, progress);
    return [];
  }
  w.observer.batch('committed', batch.length);
  const again = batch.filter((item, i) => !settle(item, outcomes[i] ?? { kind: 'again' }));
  await rerunAlone(
    w,
    again.filter((item) => !stuck.has(item.group)),
  );
  return again.filter((item) => stuck.has(item.group));
}

/**
 * The batch transaction failed. After it began and before its commit (rolled back): each write is
 * run again alone. It could not begin (SQLite busy past SQLITE_BUSY_WAIT_MS, no connection) or
 * its commit failed: that is every write's outcome, as for a lone transaction, unless the
 * database refused the commit (then nothing stayed and each write runs again alone).
 */
async function afterFailedCommit(
  w: Writer,
  batch: readonly Item[],
  error: unknown,
  progress: Progress,
): Promise<void> {
  w.observer.batch('failed', batch.length);
  if (progress === 'begun' || (progress === 'applied' && retryable(error))) {
    await rerunAlone(w, batch);
  } else {
    for (const item of batch) item.reject(error);
  }
}

/**
 * First pass: the writes one after the other, without savepoints (two statements less each).
 * Most batches have no failing write. When one throws, the whole batch is rolled back and run
 * again with a savepoint around each write, so the failing one fails alone. Settles every write
 * but those of an organisation whose row another session holds (commitIsolated), which it returns.
 */
async function commitBatch(w: Writer, batch: Item[]): Promise<Item[]> {
  const began = performance.now();
  for (const item of batch) w.observer.queued((began - item.queuedAt) / 1000);
  const [only] = batch;
  if (batch.length === 1 && only !== undefined) {
    await runAlone(w, only);
    return [];
  }
  batch.sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  const values: unknown[] = [];
  let writeFailed = false;
  let progress: Progress = 'not begun';
  try {
    await inBatch(
      w,
      async (trx, open) => {
        progress = 'begun';
        try {
          for (const item of batch) values.push(await item.work(trx));
          // Rows the writes queued (batch.ts) that fail to go in are a write that failed.
          await open.settle(trx);
        } catch (error) {
          writeFailed = true;
          throw error;
        }
        progress = 'applied';
      },
      batch,
    );
  } catch (error) {
    if (!writeFailed) {
      await afterFailedCommit(w, batch, error, progress);
      return [];
    }
    w.observer.batch('failed', batch.length);
    return commitIsolated(w, batch);
  }
  w.observer.batch('committed', batch.length);
  batch.forEach((item, i) => item.resolve(values[i]));
  return [];
}

/** Takes the next batch off the pending writes, or undefined when none may start now. */
function takeBatch(
  pending: Map<string, Item[]>,
  inFlight: ReadonlySet<string>,
  settings: GroupCommitSettings,
): { groups: readonly string[]; items: Item[] } | undefined {
  if (settings.lanes === 1) {
    // One transaction at a time (SQLite): every pending write, whatever its group.
    const items: Item[] = [];
    for (const [group, queued] of pending) {
      items.push(...queued.splice(0, settings.maxBatch - items.length));
      if (queued.length === 0) pending.delete(group);
      if (items.length >= settings.maxBatch) break;
    }
    return items.length === 0 ? undefined : { groups: [], items };
  }
  // Several at once (PostgreSQL): the writes of the groups not already in flight, longest-waiting
  // group first. A group's writes all go to one batch (up to maxBatch).
  const items: Item[] = [];
  const groups: string[] = [];
  for (const [group, queued] of pending) {
    if (inFlight.has(group)) continue;
    if (items.length > 0 && items.length + queued.length > settings.maxBatch) break;
    items.push(...queued.splice(0, settings.maxBatch));
    groups.push(group);
    if (queued.length === 0) pending.delete(group);
    if (items.length >= settings.maxBatch) break;
  }
  return items.length === 0 ? undefined : { groups, items };
}

export function createGroupWriter(
  db: Kysely<Schema>,
  settings: GroupCommitSettings,
  observer: GroupCommitObserver = NO_OBSERVER,
  direct?: DirectStatements,
): GroupWriter {
  const writer: Writer = { db, observer, direct };
  const counts = { batches: 0, writes: 0 };
  /** Writes not started yet, by group, groups in the order their oldest write arrived. */
  const pending = new Map<string, Item[]>();
  const inFlight = new Set<string>();
  let running = 0;
  /** Writes of a held organisation running alone after their batch (commitIsolated). */
  let alone = 0;
  let woken = false;

  function start(): void {
    woken = false;
    for (;;) {
      if (running >= Math.max(1, settings.lanes)) return;
      const batch = takeBatch(pending, inFlight, settings);
      if (batch === undefined) return;
      running += 1;
      for (const group of batch.groups) inFlight.add(group);
      counts.batches += 1;
      counts.writes += batch.items.length;
      // commitBatch settles every write it takes, but a held organisation's, and never rejects
      // itself. Those it returns run alone after the lane and the other groups are let go, their
      // group kept in flight until they are done, so its later writes wait behind them in order.
      void commitBatch(writer, batch.items).then(async (stuck) => {
        running -= 1;
        alone += stuck.length;
        const held = new Set(stuck.map((item) => item.group));
        for (const group of batch.groups) if (!held.has(group)) inFlight.delete(group);
        start();
        if (stuck.length === 0) return;
        await rerunAlone(writer, stuck);
        alone -= stuck.length;
        for (const group of held) inFlight.delete(group);
        start();
      });
    }
  }

  return {
    settings,
    run<T>(group: string, work: Work<T>): Promise<T> {
      if (!settings.enabled) {
        counts.batches += 1;
        counts.writes += 1;
        const done = rerunOnConflict(() => db.transaction().execute(work));
        done.then(
          () => observer.batch('committed', 1),
          () => observer.batch('failed', 1),
        );
        return done;
      }
      return new Promise<T>((resolve, reject) => {
        const item: Item = {
          group,
          work,
          queuedAt: performance.now(),
          resolve: resolve as (value: unknown) => void,
          reject,
        };
        const queued = pending.get(group);
        if (queued === undefined) pending.set(group, [item]);
        else queued.push(item);
        // Let the requests parsed in this turn of the event loop join the batch.
        if (!woken) {
          woken = true;
          setImmediate(start);
        }
      });
    },
    stats: () => ({ ...counts }),
    waiting: () => {
      let n = 0;
      for (const items of pending.values()) n += items.length;
      return n;
    },
    direct,
    async idle() {
      while (running > 0 || alone > 0 || pending.size > 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

import type { Kysely, Transaction } from 'kysely';
import type { DirectStatements } from './direct-statements.js';
import type { Database as Schema } from './schema.js';

// database.ts's Executor, spelt out: database.ts depends on the group writer, which opens batches.
type Executor = Kysely<Schema> | Transaction<Schema>;

// A group-commit batch: the one object that holds what a batch transaction of the group writer
// (group-commit.ts) keeps in memory between its writes. The writer opens it with the transaction
// and the transaction carries it (`batchOf`); transactions opened outside the group writer carry
// none, and their writes go to the database at once. It holds:
//
// - What is written once, just before the commit: the running balances of an organisation that
//   several orders of the batch debit (ledger-repository.ts), so its balance row is updated once
//   per batch instead of once per order.
// - Rows nobody reads back within the batch (an order placed into inventory, a debit decided on
//   held funds), queued instead of inserted one statement each: `settle` inserts each kind of row
//   in one statement. On PostgreSQL, where every statement is a round trip that the batch (and
//   the organisations whose balance rows it has locked) waits for, that turns two round trips per
//   order into two per batch. The group writer settles after each write run in a savepoint (so a
//   failing insert fails its own write) and after the writes of a first pass.
// - The bundles read in it, by name (catalogue-repository.ts): orders of the same bundle read its
//   row once. Orders never write bundles, and what a transaction reads first is what it would have
//   read had it run first; a write of bundles forgets them.
// - SQLite: the driver's prepared statements its compiled statements run on (direct-statements.ts),
//   while it is open.
//
// A write run in a savepoint that is rolled back loses what it set here too (`mark`, `restore`),
// so the batch always matches what the transaction holds.

export interface Deferred {
  /** Writes what is held to the database; run once, before the commit or when asked to. */
  flush(trx: Executor): Promise<void>;
}

interface Queue {
  readonly rows: unknown[];
  insert(trx: Executor, rows: readonly unknown[]): Promise<void>;
}

/** What `mark` keeps: the entries, and a copy of each queue. */
export interface Mark {
  readonly entries: ReadonlyMap<string, Deferred>;
  readonly queues: ReadonlyMap<string, Queue>;
}

export class Batch {
  #entries = new Map<string, Deferred>();
  readonly #queues = new Map<string, Queue>();
  /**
   * Bundles read in the batch, by name (undefined: no such bundle), as catalogue-repository.ts
   * reads them; typed there, so the store's bookkeeping names no domain type.
   */
  readonly bundleReads = new Map<string, unknown>();
  #direct: DirectStatements | undefined;

  /**
   * `groups`: the groups (organisations) of the batch's writes, in order, when there are enough
   * writes for reading their rows at once to pay (ledger-repository.ts); empty otherwise.
   */
  constructor(
    readonly groups: readonly string[],
    direct: DirectStatements | undefined,
  ) {
    this.#direct = direct;
  }

  /** SQLite: the prepared statements the batch's compiled statements run on; undefined once closed. */
  get direct(): DirectStatements | undefined {
    return this.#direct;
  }

  /** The batch's writes are done: what follows (the commit) goes through Kysely. */
  close(): void {
    this.#direct = undefined;
  }

  /**
   * Queues a row for `insert`, which inserts every row queued under `kind` in one statement, in
   * the order they were queued (ids follow it), when the batch settles.
   */
  queue<R>(
    kind: string,
    row: R,
    insert: (trx: Executor, rows: readonly R[]) => Promise<void>,
  ): void {
    const queue = this.#queues.get(kind);
    if (queue !== undefined) queue.rows.push(row);
    else this.#queues.set(kind, { rows: [row], insert: insert as Queue['insert'] });
  }

  /** Inserts the rows queued so far, kind by kind in the order each was first queued. */
  async settle(trx: Executor): Promise<void> {
    for (const [kind, queue] of this.#queues) {
      this.#queues.delete(kind);
      if (queue.rows.length > 0) await queue.insert(trx, queue.rows);
    }
  }

  get(key: string): Deferred | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: Deferred): void {
    this.#entries.set(key, entry);
  }

  /**
   * Writes the entry of `key`, if any, and forgets it: the database holds it from now on. The
   * queued rows go first: the statement that follows may depend on them (journal order).
   */
  async flush(trx: Executor, key: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    await this.settle(trx);
    this.#entries.delete(key);
    await entry.flush(trx);
    await this.settle(trx);
  }

  /**
   * Inserts the queued rows, then writes every entry, in key order (an entry may queue its write
   * too, so that entries of one kind go in one statement).
   */
  async flushAll(trx: Executor): Promise<void> {
    await this.settle(trx);
    const entries = [...this.#entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.#entries.clear();
    for (const [, entry] of entries) await entry.flush(trx);
    await this.settle(trx);
  }

  /** The scope as it is now, for `restore` after a rollback to a savepoint taken now. */
  mark(): Mark {
    const queues = new Map<string, Queue>();
    for (const [kind, queue] of this.#queues) {
      queues.set(kind, { rows: [...queue.rows], insert: queue.insert });
    }
    return { entries: new Map(this.#entries), queues };
  }

  /**
   * Back to `mark`. Rows queued before it and inserted since (a flush settles every queue) were
   * undone by the rollback too, so they are queued again.
   */
  restore(mark: Mark): void {
    // A bundle read after a write of bundles that is now undone may be stale: read again.
    this.bundleReads.clear();
    this.#entries = new Map(mark.entries);
    this.#queues.clear();
    for (const [kind, queue] of mark.queues) {
      this.#queues.set(kind, { rows: [...queue.rows], insert: queue.insert });
    }
  }
}

const BATCH = Symbol('group-commit batch');

/** A batch transaction: the transaction carries its batch. */
type Carrier = { readonly [BATCH]?: Batch };

/** The batch of a batch transaction of the group writer; undefined for any other handle. */
export function batchOf(trx: Executor): Batch | undefined {
  return (trx as Carrier)[BATCH];
}

/** Opens the batch of a batch transaction (the group writer does, as the transaction begins). */
export function openBatch(
  trx: Transaction<Schema>,
  groups: readonly string[],
  direct: DirectStatements | undefined,
): Batch {
  const batch = new Batch(groups, direct);
  Object.defineProperty(trx, BATCH, { value: batch });
  return batch;
}

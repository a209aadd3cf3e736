import type { Executor } from './database.js';

// What a group-commit batch keeps in memory across its writes and writes to the database once,
// just before it commits: the running balances of an organisation that several orders of the
// batch debit (ledger-repository.ts), so its balance row is updated once per batch instead of
// once per order. A write run in a savepoint that is rolled back loses what it set here too, so
// the scope always matches what the transaction holds. Transactions opened outside the group
// writer have no scope, and their writes go to the database at once.

export interface Deferred {
  /** Writes what is held to the database; run once, before the commit or when asked to. */
  flush(trx: Executor): Promise<void>;
}

export class BatchScope {
  #entries = new Map<string, Deferred>();

  get(key: string): Deferred | undefined {
    return this.#entries.get(key);
  }

  set(key: string, entry: Deferred): void {
    this.#entries.set(key, entry);
  }

  /** Writes the entry of `key`, if any, and forgets it: the database holds it from now on. */
  async flush(trx: Executor, key: string): Promise<void> {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    await entry.flush(trx);
  }

  /** Writes every entry, in key order. */
  async flushAll(trx: Executor): Promise<void> {
    for (const key of [...this.#entries.keys()].sort()) await this.flush(trx, key);
  }

  /** The entries as they are now, for `restore` after a rollback to a savepoint taken now. */
  mark(): ReadonlyMap<string, Deferred> {
    return new Map(this.#entries);
  }

  restore(mark: ReadonlyMap<string, Deferred>): void {
    this.#entries = new Map(mark);
  }
}

const scopes = new WeakMap<Executor, BatchScope>();

/** The scope of a batch transaction of the group writer; undefined for any other handle. */
export function batchScopeOf(trx: Executor): BatchScope | undefined {
  return scopes.get(trx);
}

/** Opens the scope of a batch transaction (the group writer does, as the transaction begins). */
export function openBatchScope(trx: Executor): BatchScope {
  const scope = new BatchScope();
  scopes.set(trx, scope);
  return scope;
}

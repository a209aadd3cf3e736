import type { Transaction } from 'kysely';
import type { Db, Executor, Store } from './database.js';
import type { Database as Schema } from './schema.js';
import type { GroupWriter } from './group-commit.js';

// A store whose every write joins one transaction that is already open: use cases that open
// transactions of their own (through the runner, or a group writer) run inside `tx` instead, so
// a sequence of them commits or rolls back as one. What loads a fixture uses it: a file that
// fails part-way leaves nothing behind.

/** `tx` seen as a database whose transactions are `tx` itself. */
function joinedDb(tx: Executor): Db {
  const begin = () => {
    const builder = {
      setIsolationLevel: () => builder,
      setAccessMode: () => builder,
      execute: <T>(work: (trx: Executor) => Promise<T>): Promise<T> => work(tx),
    };
    return builder;
  };
  return new Proxy(tx, {
    get(target, property) {
      if (property === 'transaction') return begin;
      const value: unknown = Reflect.get(target, property, target);
      // Kysely's methods read private fields: they run on the transaction itself.
      return typeof value === 'function'
        ? (value as (...a: unknown[]) => unknown).bind(target)
        : value;
    },
  }) as unknown as Db;
}

/** The store with every write, grouped or not, run in `tx`. */
export function joinedStore(store: Store, tx: Executor): Store {
  const writer: GroupWriter = {
    settings: store.writer.settings,
    // Only ever a transaction here: the runner's, which this store's writes join.
    run: (_group, work) => work(tx as Transaction<Schema>),
    idle: () => Promise.resolve(),
    stats: () => ({ batches: 0, writes: 0 }),
    waiting: () => 0,
    direct: undefined,
  };
  return {
    db: joinedDb(tx),
    dialect: store.dialect,
    writer,
    close: () => Promise.resolve(),
  };
}

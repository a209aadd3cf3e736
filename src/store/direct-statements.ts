import type SQLite from 'better-sqlite3';
import type { QueryResult } from 'kysely';

// SQLite: the statements of a group-commit batch run straight on the driver's prepared statement.
// Kysely hands every statement through its executor (connection provider, the transaction's
// connection lock, each plugin's asynchronous result hook): about 4 µs of CPU a statement, four to
// five times what better-sqlite3 takes to run a short insert. Inside a batch transaction the one
// connection is already this transaction's, and better-sqlite3 runs each statement to its end
// before returning, so a statement run here is run where Kysely would have run it, in the order
// the batch's writes issue them. Only the batch transactions of the group writer are registered
// (group-commit.ts), and only for as long as they are open; every other handle goes through
// Kysely. The store's plugins see these statements through their observers (store-plugins.ts).

/**
 * A plugin's view of a statement run directly: whether it may write, and how long it took
 * (undefined when it failed).
 */
export type StatementObserver = (write: boolean, seconds: number | undefined) => void;

interface Source {
  readonly prepare: (sql: string) => SQLite.Statement;
  readonly observers: readonly StatementObserver[];
}

/** Store handles whose batch transactions run directly, and what they run with. */
const sources = new WeakMap<object, Source>();
/** Batch transactions open now. */
const open = new WeakMap<object, Source>();

/** SQLite (database.ts): the batch transactions of `db` run on these prepared statements. */
export function enableDirectStatements(
  db: object,
  prepare: (sql: string) => SQLite.Statement,
): void {
  sources.set(db, { prepare, observers: [] });
}

/** `to` is `from` with plugins (store-plugins.ts): its statements are seen by `observers` too. */
export function observeDirect(
  from: object,
  to: object,
  observers: readonly StatementObserver[],
): void {
  const source = sources.get(from);
  if (source === undefined) return;
  sources.set(to, { prepare: source.prepare, observers: [...source.observers, ...observers] });
}

/**
 * Registers a batch transaction of `db` (group-commit.ts) for as long as it is open; the function
 * returned ends that. Nothing happens for a handle that does not run directly (PostgreSQL).
 */
export function openDirect(db: object, trx: object): () => void {
  const source = sources.get(db);
  if (source === undefined) return () => undefined;
  open.set(trx, source);
  return () => open.delete(trx);
}

/**
 * Runs a compiled statement on `handle` directly when it is an open batch transaction; undefined
 * otherwise (the caller goes through Kysely). The result has the shape Kysely's SQLite driver
 * gives, and a failing statement rejects with the driver's error, as there.
 */
export function runDirect<R>(
  handle: object,
  sql: string,
  parameters: readonly unknown[],
  write: boolean,
): Promise<QueryResult<R>> | undefined {
  const source = open.get(handle);
  if (source === undefined) return undefined;
  const started = process.hrtime.bigint();
  let result: QueryResult<R>;
  try {
    const statement = source.prepare(sql);
    if (statement.reader) {
      result = { rows: statement.all(parameters) as R[] };
    } else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      result = {
        numAffectedRows: BigInt(changes),
        insertId: BigInt(lastInsertRowid),
        rows: [],
      };
    }
  } catch (error) {
    for (const observe of source.observers) observe(write, undefined);
    return Promise.reject(error as Error);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const observe of source.observers) observe(write, seconds);
  return Promise.resolve(result);
}

import type SQLite from 'better-sqlite3';
import type { QueryResult } from 'kysely';

// SQLite: the statements of a group-commit batch run straight on the driver's prepared statement.
// Kysely hands every statement through its executor (connection provider, the transaction's
// connection lock, each plugin's asynchronous result hook): about 4 µs of CPU a statement, four to
// five times what better-sqlite3 takes to run a short insert. Inside a batch transaction the one
// connection is already this transaction's, and better-sqlite3 runs each statement to its end
// before returning, so a statement run here is run where Kysely would have run it, in the order
// the batch's writes issue them. The SQLite store hands its group writer a `DirectStatements`
// (database.ts); the writer gives it to each batch it opens, for as long as the batch is open
// (batch.ts), and every other handle goes through Kysely. The store's plugins see these
// statements through their observers (store-plugins.ts).

/**
 * A plugin's view of a statement run directly: whether it may write, and how long it took
 * (undefined when it failed).
 */
export type StatementObserver = (write: boolean, seconds: number | undefined) => void;

/** The driver's prepared statements of one SQLite store, and who observes what runs on them. */
export class DirectStatements {
  constructor(
    private readonly prepare: (sql: string) => SQLite.Statement,
    private readonly observers: readonly StatementObserver[] = [],
  ) {}

  /** The same statements, seen by `observers` too (a store handle with plugins). */
  observedBy(observers: readonly StatementObserver[]): DirectStatements {
    return new DirectStatements(this.prepare, [...this.observers, ...observers]);
  }

  /**
   * Runs a compiled statement. The result has the shape Kysely's SQLite driver gives, and a
   * failing statement rejects with the driver's error, as there.
   */
  run<R>(sql: string, parameters: readonly unknown[], write: boolean): Promise<QueryResult<R>> {
    const started = process.hrtime.bigint();
    let result: QueryResult<R>;
    try {
      const statement = this.prepare(sql);
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
      for (const observe of this.observers) observe(write, undefined);
      return Promise.reject(error as Error);
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    for (const observe of this.observers) observe(write, seconds);
    return Promise.resolve(result);
  }
}

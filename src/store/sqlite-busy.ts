import { setTimeout as sleep } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import { CompiledQuery, SqliteDialect, SqliteDriver } from 'kysely';
import type { TurnRole, WriteTurns } from './write-turns.js';
import type {
  DatabaseConnection,
  Driver,
  QueryCompiler,
  QueryResult,
  SqliteDialectConfig,
  TransactionSettings,
} from 'kysely';

// Several processes on one SQLite file: the server, `esim` commands an operator runs beside it,
// or a second writer. SQLite lets one of them write at a time; the others must wait their turn
// instead of failing with SQLITE_BUSY ("database is locked"). Three measures:
//
// 1. Write transactions begin IMMEDIATE: the write lock is taken at BEGIN, where waiting is safe.
//    A deferred transaction that reads first and writes later fails at its first write, with no
//    wait at all, whenever another process committed in between (its snapshot is stale), and it
//    can then only be rolled back. Within one process nothing changes: the single connection
//    runs one transaction at a time anyway. A transaction marked read-only begins deferred.
// 2. busy_timeout (set in database.ts) makes SQLite itself wait, briefly: better-sqlite3 is
//    synchronous, so that wait holds up the whole event loop.
// 3. Past it, BEGIN and statements outside a transaction (each one atomic, so safe to repeat)
//    are retried after an asynchronous pause that lets the process serve other work, with
//    growing, jittered pauses, up to SQLITE_BUSY_WAIT_MS (BUSY_RETRY_MS by default) in all. COMMIT is retried too: SQLite keeps
//    the transaction open when COMMIT answers busy. A statement inside a transaction is never
//    retried alone; with the lock taken at BEGIN it does not meet a busy database.

/** The default of how long a statement or BEGIN is retried before SQLITE_BUSY reaches the caller. */
export const BUSY_RETRY_MS = 15_000;
const FIRST_PAUSE_MS = 2;
const LONGEST_PAUSE_MS = 100;

export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/** Pauses taken by this thread so far after SQLITE_BUSY (what bench/callback-lag.ts reports). */
let pausesTaken = 0;

/** How many times this thread has paused for a busy database so far. */
export function busyPauses(): number {
  return pausesTaken;
}

/** Runs `attempt` until it does not fail with SQLITE_BUSY, or until `budgetMs` has passed. */
export async function retryWhileBusy<T>(
  attempt: () => Promise<T>,
  budgetMs = BUSY_RETRY_MS,
): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (let round = 0; ; round += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isBusyError(error) || Date.now() >= deadline) throw error;
      const pause = Math.min(FIRST_PAUSE_MS * 2 ** round, LONGEST_PAUSE_MS);
      pausesTaken += 1;
      await sleep(pause / 2 + Math.random() * (pause / 2));
    }
  }
}

class BusyWaitingConnection implements DatabaseConnection {
  constructor(
    private readonly inner: DatabaseConnection,
    private readonly sqlite: SQLite.Database,
    private readonly budgetMs: number,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const repeatable = !this.sqlite.inTransaction || query.sql === 'commit';
    return repeatable
      ? retryWhileBusy(() => this.inner.executeQuery<R>(query), this.budgetMs)
      : this.inner.executeQuery<R>(query);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class BusyWaitingDriver implements Driver {
  private connection: BusyWaitingConnection | undefined;
  private noWait: SQLite.Statement | undefined;
  private usualWait: SQLite.Statement | undefined;
  private begin: SQLite.Statement | undefined;

  constructor(
    private readonly inner: SqliteDriver,
    private readonly sqlite: SQLite.Database,
    private readonly budgetMs: number,
    private readonly busyTimeoutMs: number,
    private readonly turns: { readonly turns: WriteTurns; readonly role: TurnRole } | undefined,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    this.connection ??= new BusyWaitingConnection(connection, this.sqlite, this.budgetMs);
    return this.connection;
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    if (settings.accessMode === 'read only') {
      await connection.executeQuery(CompiledQuery.raw('begin'));
      return;
    }
    // The write lock is most often busy for a moment only (the checkpointer's RESTART, another
    // process's short write): rather than SQLite's busy_timeout, which sleeps on the event loop
    // (a millisecond at least), BEGIN waits through the asynchronous pauses of retryWhileBusy,
    // and the process parses and queues other requests meanwhile. Nothing else runs on the
    // connection while its transaction begins.
    // The two pragmas are prepared once: `pragma()` prepares its statement on every call.
    this.noWait ??= this.sqlite.prepare('pragma busy_timeout = 0');
    this.usualWait ??= this.sqlite.prepare(`pragma busy_timeout = ${this.busyTimeoutMs}`);
    // Another connection of this process that must not be starved of the lock (write-turns.ts).
    if (this.turns?.role === 'yields') await this.turns.turns.yieldTo();
    this.noWait.get();
    try {
      if (this.turns?.role === 'asks') this.beginInTurn(this.turns.turns);
      else await connection.executeQuery(CompiledQuery.raw('begin immediate'));
    } finally {
      this.usualWait.get();
    }
  }

  /**
   * The asking connection's BEGIN: while the lock is busy, it sleeps until the service's
   * connection lets go of it (write-turns.ts), up to the budget of retryWhileBusy.
   */
  private beginInTurn(turns: WriteTurns): void {
    this.begin ??= this.sqlite.prepare('begin immediate');
    const deadline = Date.now() + this.budgetMs;
    turns.ask();
    for (;;) {
      try {
        this.begin.run();
        return;
      } catch (error) {
        if (!isBusyError(error) || Date.now() >= deadline) {
          turns.done();
          throw error;
        }
        pausesTaken += 1;
        turns.awaitFree();
      }
    }
  }

  /** After a transaction: the turn ends (asking) or is offered to the other (yielding). */
  private endTurn(): void {
    if (this.turns?.role === 'asks') this.turns.turns.done();
    else this.turns?.turns.letGo();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.commitTransaction(connection);
    } finally {
      // A COMMIT that failed busy leaves the transaction open, and its rollback ends the turn.
      if (!this.sqlite.inTransaction) this.endTurn();
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } finally {
      this.endTurn();
    }
  }

  savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.savepoint(connection, name, compile);
  }

  rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.rollbackToSavepoint(connection, name, compile);
  }

  releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    return this.inner.releaseSavepoint(connection, name, compile);
  }

  releaseConnection(): Promise<void> {
    return this.inner.releaseConnection();
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's SQLite dialect, with write transactions that begin IMMEDIATE and wait when busy. */
export class BusyWaitingSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly sqlite: SQLite.Database,
    private readonly busyWaitMs: number,
    private readonly turns?: { readonly turns: WriteTurns; readonly role: TurnRole },
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    // busy_timeout as database.ts set it, restored after each BEGIN.
    const busyTimeoutMs = this.sqlite.pragma('busy_timeout', { simple: true }) as number;
    return new BusyWaitingDriver(
      new SqliteDriver(this.settings),
      this.sqlite,
      this.busyWaitMs,
      busyTimeoutMs,
      this.turns,
    );
  }
}

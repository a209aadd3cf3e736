import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql } from 'kysely';
import type {
  Migration,
  MigrationProvider,
  MigrationResultSet,
  PostgresPool,
  SqliteDatabase,
  Transaction,
} from 'kysely';
import type { Pool } from 'pg';
import { DEFAULT_DATABASE_CONNECT_TIMEOUT_MS } from '../config.js';
import type { DatabaseTarget, SqliteSynchronous } from '../config.js';
import type { Database as Schema } from './schema.js';
import { loginRefused, noConnection } from './conflicts.js';
import { ConnectionBursts, retryingPool } from './connection-retry.js';
import type { ConnectRetry, ConnectionWatcher } from './connection-retry.js';
import { DEFAULT_LANES, DEFAULT_MAX_BATCH, createGroupWriter } from './group-commit.js';
import type { GroupWriter } from './group-commit.js';
import { DirectStatements } from './direct-statements.js';
import { migrationsFor } from './migrations/index.js';
import { markLostTransactions } from './lost-transactions.js';
import { preparePrivateDatabase } from './private-files.js';
import { BUSY_RETRY_MS, BusyWaitingSqliteDialect } from './sqlite-busy.js';
import { startCheckpointer } from './wal-checkpointer.js';
import type { Checkpointer } from './wal-checkpointer.js';
import { WriteTurns } from './write-turns.js';
import type { TurnRole } from './write-turns.js';

export type DialectName = 'sqlite' | 'postgres';
export type Db = Kysely<Schema>;
/** A database handle or an open transaction: repository functions take either. */
export type Executor = Kysely<Schema> | Transaction<Schema>;

export interface Store {
  readonly db: Db;
  readonly dialect: DialectName;
  /** Runs write transactions, several in one commit when group commit is on (group-commit.ts). */
  readonly writer: GroupWriter;
  /**
   * SQLite file: the turns at the write lock that a second connection of this process (the
   * callback delivery thread's) asks for (write-turns.ts); this store's connection yields to it.
   */
  readonly writeTurns?: WriteTurns;
  /** Connections of the PostgreSQL pool; undefined for SQLite (one connection). */
  poolStats?(): { total: number; idle: number; waiting: number };
  /**
   * PostgreSQL: tells `watcher` of connections the server refuses, and of waits for the pool's
   * own connections that timed out, once per burst (connection-retry.ts); the function returned
   * stops it. Undefined for SQLite.
   */
  watchConnections?(watcher: ConnectionWatcher): () => void;
  close(): Promise<void>;
}

/** How long SQLite itself waits for a lock before the asynchronous retries take over. */
export const SQLITE_BUSY_TIMEOUT_MS = 250;

export interface StoreOptions {
  /** PostgreSQL: connections in the pool (20). */
  readonly poolSize?: number;
  /** SQLite: how long a write may wait in all for a busy database (SQLITE_BUSY_WAIT_MS). */
  readonly busyWaitMs?: number;
  /** Group commit of the writes run through `writer` (GROUP_COMMIT, on by default). */
  readonly groupCommit?: boolean;
  /** Most writes in one group commit (GROUP_COMMIT_MAX_BATCH). */
  readonly groupCommitMaxBatch?: number;
  /**
   * SQLite file: checkpoints run on a worker thread this often (SQLITE_CHECKPOINT_INTERVAL_MS)
   * instead of inside commits (wal-checkpointer.ts). Unset or 0: SQLite's own, in the commits,
   * as for the short-lived connections of the command-line tool.
   */
  readonly checkpointIntervalMs?: number;
  /**
   * SQLite: `full` syncs the WAL at every commit, so an acknowledged write survives a power loss
   * too; `normal` (the default) only at checkpoints (SQLITE_SYNCHRONOUS).
   */
  readonly synchronous?: SqliteSynchronous;
  /** PostgreSQL: batches in flight at once (GROUP_COMMIT_LANES), at most the pool less four. */
  readonly groupCommitLanes?: number;
  /** SQLite `:memory:`: the serialised database (`serialize()`) it starts as a copy of. */
  readonly image?: Buffer;
  /**
   * SQLite file: a second connection of the process (the callback delivery thread's) opened with
   * the service's turns (Store.writeTurns), which it asks for before each write transaction.
   */
  readonly askTurnsOf?: SharedArrayBuffer;
  /** PostgreSQL: how a connection the server refused is asked for again (connection-retry.ts). */
  readonly connectRetry?: ConnectRetry;
  /** PostgreSQL: what the connections are called in pg_stat_activity (application_name). */
  readonly applicationName?: string;
  /** PostgreSQL: how long a connection idle in the pool stays open (pg's 10 s; 0: until close). */
  readonly idleTimeoutMs?: number;
  /**
   * PostgreSQL: how long opening a connection may take before the try fails and is asked for
   * again, and a wait for one of the pool's before it fails at once (DATABASE_CONNECT_TIMEOUT_MS;
   * connection-retry.ts).
   */
  readonly connectTimeoutMs?: number;
  /**
   * PostgreSQL: the server ends a statement that runs longer (a lock wait included), and a
   * session idle inside a transaction longer (DATABASE_STATEMENT_TIMEOUT_MS; 0 or unset: never).
   * Both roll the transaction back: the work is answered 503 database_busy (conflicts.ts).
   */
  readonly statementTimeoutMs?: number;
}

function writerFor(
  db: Db,
  options: StoreOptions,
  lanes: number,
  direct?: DirectStatements,
): GroupWriter {
  return createGroupWriter(
    db,
    {
      enabled: options.groupCommit ?? true,
      maxBatch: options.groupCommitMaxBatch ?? DEFAULT_MAX_BATCH,
      lanes,
    },
    undefined,
    direct,
  );
}

export function openStore(target: DatabaseTarget, options: StoreOptions = {}): Store {
  if (target.kind === 'sqlite') {
    if (target.path !== ':memory:') preparePrivateDatabase(target.path);
    const sqlite =
      options.image !== undefined && target.path === ':memory:'
        ? new SQLite(options.image)
        : new SQLite(target.path);
    const statements = withStatementCache(sqlite);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma(`synchronous = ${options.synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Kept short: better-sqlite3 waits synchronously, holding up the event loop. Longer waits
    // are asynchronous retries (sqlite-busy.ts).
    sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    sqlite.pragma('foreign_keys = ON');
    // The process's second connection (the delivery thread's) leaves checkpoints to the service's
    // connection and its checkpointer thread: its commits never copy the WAL back themselves.
    if (options.askTurnsOf !== undefined) sqlite.pragma('wal_autocheckpoint = 0');
    const turns =
      target.path === ':memory:'
        ? undefined
        : options.askTurnsOf === undefined
          ? { turns: new WriteTurns(), role: 'yields' as TurnRole }
          : { turns: new WriteTurns(options.askTurnsOf), role: 'asks' as TurnRole };
    const db = new Kysely<Schema>({
      dialect: new BusyWaitingSqliteDialect(
        { database: statements },
        sqlite,
        options.busyWaitMs ?? BUSY_RETRY_MS,
        turns,
      ),
    });
    // The batch transactions of the group writer run on the driver's statements directly.
    const writer = writerFor(db, options, 1, new DirectStatements(statements.prepare));
    const interval = options.checkpointIntervalMs ?? 0;
    const checkpointer =
      interval > 0 && target.path !== ':memory:'
        ? startCheckpointer(sqlite, target.path, interval)
        : undefined;
    return {
      db,
      dialect: 'sqlite',
      writer,
      ...(turns === undefined ? {} : { writeTurns: turns.turns }),
      close: () => closeAfter(writer, db, checkpointer),
    };
  }
  const poolSize = options.poolSize ?? 20;
  let pool: Pool | undefined;
  const bursts = new ConnectionBursts();
  // Kysely's driver asks the pool for each connection through connect(), nothing else.
  const connect = async (): Promise<PostgresPool> => {
    pool = await openPool(target.url, poolSize, options);
    return retryingPool(pool, bursts, options.connectRetry);
  };
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool: connect }) });
  // Each lane runs one batch transaction at a time. Fewer lanes make larger batches: fewer
  // transactions, commits and statements per order (a batch takes the orders of every
  // organisation waiting), which is what costs CPU on both sides; more lanes keep more round trips
  // in flight. Four connections stay free for reads and other writes.
  const lanes = Math.min(options.groupCommitLanes ?? DEFAULT_LANES, poolSize - 4);
  const writer = writerFor(db, options, Math.max(1, lanes));
  return {
    db,
    dialect: 'postgres',
    writer,
    poolStats: () => ({
      total: pool?.totalCount ?? 0,
      idle: pool?.idleCount ?? 0,
      waiting: pool?.waitingCount ?? 0,
    }),
    watchConnections: (watcher) => bursts.watch(watcher),
    close: () => closeAfter(writer, db),
  };
}

/**
 * The PostgreSQL pool, made on the first query. pg is loaded only then: a SQLite service never
 * pays for loading it (on Node.js 20 its first load also loads Node's fetch implementation).
 */
async function openPool(
  url: string,
  max: number,
  { applicationName, idleTimeoutMs, connectTimeoutMs, statementTimeoutMs }: StoreOptions,
): Promise<Pool> {
  const { default: pg } = await import('pg');
  // int8 (bigint) comes back from pg as a string; every bigint here is money, bytes or a counter
  // well inside Number.MAX_SAFE_INTEGER.
  pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10));
  const pool = new pg.Pool({
    connectionString: url,
    max,
    // Without a timeout a connection to a server whose packets are dropped (a firewall, a host
    // gone) waits for the OS's TCP timeout, minutes, and the request with it.
    connectionTimeoutMillis: connectTimeoutMs ?? DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    // TCP keepalive: an idle connection whose server went away unannounced (a host gone, a
    // firewall's state dropped) is found dead by the OS rather than by the next query sent on it
    // (the delivery thread keeps its connections open between drains). Probes begin after 10 s
    // idle instead of the OS's default two hours; the rest is the OS's: with Linux's defaults
    // (net.ipv4.tcp_keepalive_intvl 75 s, tcp_keepalive_probes 9) a dead peer is declared about
    // 11 minutes after that. A query sent on it meanwhile waits for TCP's retransmissions
    // instead. While the peer answers, a probe every 10 s idle also keeps a firewall's or NAT's
    // state of the connection from expiring.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
    ...(idleTimeoutMs === undefined ? {} : { idleTimeoutMillis: idleTimeoutMs }),
  });
  // An idle client that the server drops (restart, failover, admin termination) is removed from
  // the pool by pg itself; without a listener the 'error' event would crash the process.
  pool.on('error', () => undefined);
  // A client in use (checked out, so without the pool's listener) whose connection is lost emits
  // 'error' too, besides failing its query: without a listener of its own that crashes the process.
  // Its query fails, and the pool drops it when it is given back.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    markLostTransactions(client);
    // Set on each new session by a statement, not as startup parameters, which a pooler such as
    // PgBouncer refuses. pg runs a client's queries in order: this one before any the pool's
    // user sends. A failure surfaces in that user's query (the connection is gone).
    if (statementTimeoutMs !== undefined && statementTimeoutMs > 0) {
      const ms = Math.floor(statementTimeoutMs);
      client
        .query(`set statement_timeout = ${ms}; set idle_in_transaction_session_timeout = ${ms}`)
        .catch(() => undefined);
    }
  });
  return pool;
}

/**
 * Closes the database once the writes already queued have been settled. The checkpointer's
 * connection closes first, so the service's, the last one, checkpoints what is left and removes
 * the WAL file, as SQLite does on a clean close.
 */
async function closeAfter(writer: GroupWriter, db: Db, checkpointer?: Checkpointer): Promise<void> {
  await writer.idle();
  await checkpointer?.stop();
  await db.destroy();
}

// Kysely prepares every statement anew; preparing costs about as much as running a simple one.
// Statements are reused by SQL text (bounded, oldest dropped first). Safe because the one
// connection runs one statement at a time, and SQLite re-prepares a statement after a schema change.
const STATEMENT_CACHE_SIZE = 500;

function withStatementCache(
  sqlite: SQLite.Database,
): SqliteDatabase & { prepare(sqlText: string): SQLite.Statement } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sqlText: string) {
      let statement = cache.get(sqlText);
      if (statement === undefined) {
        statement = sqlite.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next();
          if (oldest.done !== true) cache.delete(oldest.value);
        }
        cache.set(sqlText, statement);
      }
      return statement;
    },
  };
}

/** The database could not be opened: out of reach, no connection to be had, or the login refused. */
const cannotOpen = (error: unknown): boolean => noConnection(error) || loginRefused(error);

class StaticProvider implements MigrationProvider {
  constructor(private readonly dialect: DialectName) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrationsFor(this.dialect);
  }
}

/**
 * Applies every pending migration; returns the names applied now. On PostgreSQL they run on one
 * connection with the statement and idle-in-transaction timeouts lifted (an index built over a
 * large table, a wait for another instance's migration lock), set back before the connection
 * returns to the pool.
 */
export async function migrate(store: Store): Promise<string[]> {
  const { error, results } =
    store.dialect === 'postgres'
      ? await store.db
          .connection()
          .execute(async (connection) => {
            const { rows } = await sql<{ statement: string; idle: string }>`
              select current_setting('statement_timeout') as statement,
                current_setting('idle_in_transaction_session_timeout') as idle`.execute(connection);
            const before = rows[0] ?? { statement: '0', idle: '0' };
            await sql`set statement_timeout = 0; set idle_in_transaction_session_timeout = 0`.execute(
              connection,
            );
            const result = await migrateWith(connection, store.dialect);
            // Set back as they were (RESET would go to the server's default, not the pool's);
            // a connection lost meanwhile is dropped by the pool, and the migrator's own
            // result, its error included, is what is reported.
            await sql`select set_config('statement_timeout', ${before.statement}, false),
              set_config('idle_in_transaction_session_timeout', ${before.idle}, false)`
              .execute(connection)
              .catch(() => undefined);
            return result;
          })
          .catch((thrown: unknown) => ({ error: thrown, results: undefined }))
      : await migrateWith(store.db, store.dialect);
  if (error !== undefined) {
    const failed = results?.find((r) => r.status === 'Error');
    const reason = error instanceof Error ? error.message : String(error);
    if (failed !== undefined)
      throw new Error(`migration ${failed.migrationName} failed: ${reason}`);
    // No migration ran: say so, rather than blame a migration the operator would go looking for,
    // and speak of opening the database only when that is what failed. Otherwise the migrator
    // refused (a migration recorded that this build does not know: a database migrated by a newer
    // build, then rolled back) or the migration table was not readable.
    if (cannotOpen(error)) {
      throw new Error(
        `could not open the database to migrate it (no migration was applied): ${reason}`,
      );
    }
    throw new Error(`no migration was applied: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

function migrateWith(db: Db, dialect: DialectName): Promise<MigrationResultSet> {
  return new Migrator({
    db,
    provider: new StaticProvider(dialect),
    // Names start with a zero-padded number, so code-point order is their order. Kysely's
    // default, localeCompare, sets up ICU's collation on every start.
    nameComparator: (a, b) => (a < b ? -1 : a > b ? 1 : 0),
    // A database that already has a later migration still takes an earlier number added since
    // (each migration stands on the ones before it by number, and none depends on a later one).
    allowUnorderedMigrations: true,
  }).migrateToLatest();
}

export async function ping(store: Store): Promise<void> {
  await sql`select 1`.execute(store.db);
}

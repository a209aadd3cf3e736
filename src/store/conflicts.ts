import { COMMIT_UNKNOWN, NOT_SENT, TRANSACTION_LOST } from './lost-transactions.js';
import { isBusyError } from './sqlite-busy.js';

// Errors that say the database could not do the work now, though nothing is wrong with it.
//
// - A deadlock (40P01) or a serialisation failure (40001) on PostgreSQL: the transaction that
//   lost was rolled back whole, nothing of it stayed, and the same work may simply be run again.
//   Transactions that write take their row locks in one order where they can (the group writer
//   sorts its writes by organisation, counters are moved in counter order, esim_filters rows at
//   the commit); a cycle with another instance's worker can still close on rows taken in an
//   order no one statement controls, and the one PostgreSQL picks must not fail its request.
// - No connection to be had (PostgreSQL: too many clients, 53300; the server starting or
//   stopping, 57P03), or SQLite held by another process past SQLITE_BUSY_WAIT_MS: nothing was
//   written. On PostgreSQL the pool asks for the connection again after a pause, for reads and
//   transactions alike (connection-retry.ts); an error that outlasts those tries is not run again
//   here, since the server refuses only new connections and the pool has already waited.
// - Every connection of this instance's own pool busy for the connect timeout (POOL_FULL): nothing
//   was sent, and the wait has already lasted the timeout, so it is not asked for again.
// - A statement that ran past DATABASE_STATEMENT_TIMEOUT_MS (57014; a wait for a row lock that a
//   stuck session holds, a runaway query), or a session ended for idling in its transaction past
//   it (25P03): PostgreSQL rolled the transaction back. Not run again here: what made it slow is
//   likely still there.
// Either way a request that meets one, after its retries, is answered 503 database_busy with
// Retry-After (http/error-handler.ts), never 500.

/**
 * How many times in all a transaction is run while it loses a conflict, and a connection is asked
 * for while the server refuses it (connection-retry.ts).
 */
export const CONFLICT_ATTEMPTS = 3;
/** The pause before a connection the server refused is asked for again, times its attempt. */
export const NO_CONNECTION_PAUSE_MS = 100;

const RERUNNABLE = new Set(['40001', '40P01']);
// 57014: a statement the server cancelled (DATABASE_STATEMENT_TIMEOUT_MS, or an operator's
// pg_cancel_backend); 25P03: a session ended for staying idle inside its transaction past the
// same timeout. Either way the transaction was rolled back whole.
const CANCELLED = new Set(['57014']);
const ENDED = new Set(['57014', '25P03']);
// NOT_SENT (lost-transactions.ts) is pg's error for a query on a client whose connection had
// already failed (the server ended the session: 25P03 while it idled in its transaction, an
// operator's pg_terminate_backend): the query was never sent, and what the transaction wrote went
// with the session.
/** lost-transactions.ts: a ROLLBACK that failed with its connection, no COMMIT sent. */
const LOST = new Set([TRANSACTION_LOST]);
const UNKNOWN = new Set([COMMIT_UNKNOWN]);
// 08001: no connection could be made at all (connection-retry.ts, DatabaseUnreachable).
const NO_CONNECTION = new Set(['53300', '57P03', '08001']);
// The login refused: the database does not exist (3D000: dropped or renamed under a running
// instance), a wrong password (28P01: rotated), a role that may not log in (28000). Not asked
// again (a refusal that lasts), and the workers log it as the error it is; a request that meets
// it is answered 503 all the same, never 500.
const LOGIN_REFUSED = new Set(['3D000', '28P01', '28000']);
/** The code of connection-retry.ts's PoolFull: this service's own, not a SQLSTATE. */
export const POOL_FULL = 'POOL_FULL';
const POOL_FULL_CODES = new Set([POOL_FULL]);

/**
 * Whether `error` carries one of `codes` (a PostgreSQL SQLSTATE, Node.js's network code, or
 * POOL_FULL).
 */
export function hasCode(error: unknown, codes: ReadonlySet<string>): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && codes.has(code);
}

/** PostgreSQL errors after which the same work may simply be run again: nothing of it stayed. */
export const retryable = (error: unknown): boolean => hasCode(error, RERUNNABLE);

/** No new connection: PostgreSQL refused it (too many clients, starting or stopping) or is unreachable. */
export const noConnection = (error: unknown): boolean => hasCode(error, NO_CONNECTION);

/** Every connection of this instance's pool stayed busy for the connect timeout (PoolFull). */
export const poolFull = (error: unknown): boolean => hasCode(error, POOL_FULL_CODES);

/**
 * Runs `transaction` (one whole transaction, begun and committed by it) again while it loses a
 * deadlock or a serialisation conflict, CONFLICT_ATTEMPTS times in all; the last error is thrown.
 */
export async function rerunOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= CONFLICT_ATTEMPTS || !retryable(error)) throw error;
    }
  }
}

/** The server cancelled the statement (57014: its timeout, or an operator's pg_cancel_backend). */
export const statementCancelled = (error: unknown): boolean => hasCode(error, CANCELLED);

/** The server ended the statement (its timeout) or the idle transaction's session: rolled back. */
export const endedByServer = (error: unknown): boolean =>
  hasCode(error, ENDED) ||
  hasCode(error, LOST) ||
  (error instanceof Error && error.message === NOT_SENT);

/**
 * The connection was lost during a COMMIT (lost-transactions.ts): the transaction may or may not
 * have stayed. Not busy: a blind retry could do the work twice.
 */
export const commitUnknown = (error: unknown): boolean => hasCode(error, UNKNOWN);

/** PostgreSQL refused the login: no such database, a wrong password, a role that may not log in. */
export const loginRefused = (error: unknown): boolean => hasCode(error, LOGIN_REFUSED);

/** The database could not do the work now and nothing was written: a retry later is safe. */
export function databaseBusy(error: unknown): boolean {
  return (
    retryable(error) ||
    noConnection(error) ||
    poolFull(error) ||
    endedByServer(error) ||
    isBusyError(error)
  );
}

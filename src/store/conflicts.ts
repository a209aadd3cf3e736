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
//   written.
// Either way a request that meets one, after its retries, is answered 503 database_busy with
// Retry-After (http/error-handler.ts), never 500.

/** How many times in all a transaction is run when it loses a deadlock or serialisation conflict. */
export const CONFLICT_ATTEMPTS = 3;

const RERUNNABLE = new Set(['40001', '40P01']);
const NO_CONNECTION = new Set(['53300', '57P03']);

function codeOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

/** PostgreSQL errors after which the same work may simply be run again: nothing of it stayed. */
export function retryable(error: unknown): boolean {
  const code = codeOf(error);
  return typeof code === 'string' && RERUNNABLE.has(code);
}

/**
 * Runs `transaction` (one whole transaction, begun and committed by it) again while it loses a
 * deadlock or a serialisation conflict, CONFLICT_ATTEMPTS times in all; the last error is thrown.
 */
export async function rerunOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await transaction();
    } catch (error) {
      if (!retryable(error) || attempt >= CONFLICT_ATTEMPTS) throw error;
    }
  }
}

/** The database could not do the work now and nothing was written: a retry later is safe. */
export function databaseBusy(error: unknown): boolean {
  const code = codeOf(error);
  if (typeof code === 'string' && (RERUNNABLE.has(code) || NO_CONNECTION.has(code))) return true;
  return isBusyError(error);
}

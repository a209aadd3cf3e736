// A transaction whose work failed because its connection was lost (the server ended the session:
// idle inside its transaction past DATABASE_STATEMENT_TIMEOUT_MS, an operator's
// pg_terminate_backend, a restart) is rolled back by Kysely with a ROLLBACK on the same
// connection, which fails too, and Kysely then throws the ROLLBACK's error ("Connection terminated
// unexpectedly", with no code) in place of the work's. That error alone says nothing of what was
// written; here it is known: no COMMIT was sent on the connection, so nothing of the transaction
// stayed. It is made TransactionLost, which is answered 503 database_busy (conflicts.ts).
//
// A ROLLBACK that fails after a failed COMMIT is different: the connection went while the COMMIT
// was on its way or being applied, and nothing on this side can tell whether the server applied
// it. It is made CommitUnknown, answered 503 commit_unknown (http/error-handler.ts): the caller
// reads back what it wrote, or sends it again with the same Idempotency-Key. Only when the server
// never read the COMMIT (the connection had already failed, or the session had been ended for
// idling in its transaction), or the transaction was read only, is it TransactionLost.
//
// A statement outside any transaction (autocommit: a claim of an Idempotency-Key, a top-up's
// pending row or its unknown mark) is its own transaction, committed by the server once it has run. Its lost
// connection is classed by the statement itself (`lostStatement`):
// - pg's NOT_SENT: it was never sent: TransactionLost;
// - a read (a plain select, a begin) wrote nothing, however its connection went: TransactionLost;
// - a write whose connection went, by the server's FATAL as its answer (57P01: an operator's
//   pg_terminate_backend, a shutdown) or with no answer at all ("Connection terminated
//   unexpectedly", no code, or the socket's error: a network cut, a server killed): CommitUnknown.
//   A terminate usually ends a statement that waits, which then left nothing; but with the
//   extended protocol the server commits at the Sync that follows the statement's completion, and
//   a terminate acted on around that commit also arrives as the FATAL, after a write that stayed.
//   Nothing on this side tells the two apart, so the caller is told to check.
// Errors that are answers (a constraint broken, a statement timeout) pass as they are.

/** The code of TransactionLost: this service's own, not a SQLSTATE. */
export const TRANSACTION_LOST = 'TRANSACTION_LOST';

/** The code of CommitUnknown: this service's own, not a SQLSTATE. */
export const COMMIT_UNKNOWN = 'COMMIT_UNKNOWN';

/** A transaction whose connection went: `code` says whether what it wrote is known. */
class LostConnection extends Error {
  constructor(
    readonly code: typeof TRANSACTION_LOST | typeof COMMIT_UNKNOWN,
    what: string,
    cause: unknown,
  ) {
    super(`${what}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** Where the connection went: in a transaction's COMMIT, or in a statement outside any. */
type During = 'commit' | 'statement';

export class TransactionLost extends LostConnection {
  constructor(cause: unknown, during: During = 'commit') {
    super(
      TRANSACTION_LOST,
      during === 'commit'
        ? 'the connection was lost before the transaction committed, so nothing of it stayed'
        : 'the connection was lost before the statement could write anything',
      cause,
    );
    this.name = 'TransactionLost';
  }
}

export class CommitUnknown extends LostConnection {
  constructor(cause: unknown, during: During = 'commit') {
    super(
      COMMIT_UNKNOWN,
      during === 'commit'
        ? 'the connection was lost during the commit, so whether the transaction stayed is unknown'
        : 'the connection was lost while the statement ran, so whether it stayed is unknown',
      cause,
    );
    this.name = 'CommitUnknown';
  }
}

/** pg's error for a query on a client whose connection had already failed: never sent. */
export const NOT_SENT = 'Client has encountered a connection error and is not queryable';

type Query = (...args: unknown[]) => unknown;

/**
 * The COMMIT failed before the server read it: pg never sent it (the connection had already
 * failed), or the server had already ended the session for idling in its transaction (25P03,
 * raised only while it waits for the client, so the FATAL arrived as the COMMIT's answer).
 */
function neverRead(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.message === NOT_SENT || (error as { code?: unknown }).code === '25P03';
}

/** The error of a connection that ended with no answer: pg's, with no code. */
const TERMINATED = 'Connection terminated unexpectedly';
/** The socket's own errors, which pg gives the statement under way: no answer came either. */
const NETWORK = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Statements that write nothing: a plain select, the begin of a transaction. */
const READS = /^\s*(select|begin|start transaction)\b/i;

/**
 * The server ended the session, its FATAL the statement's answer: an operator's
 * pg_terminate_backend or a shutdown (57P01), a crash of another backend (57P02), an idle
 * session's timeout (57P05). By code, since the severity pg reports is in the server's language.
 * (57P03, a server not accepting connections, comes at connect, before any statement.)
 */
const ENDED_SESSION = new Set(['57P01', '57P02', '57P05']);
const endedSession = (code: unknown): boolean =>
  typeof code === 'string' && ENDED_SESSION.has(code);

/**
 * What a statement outside any transaction that failed with its connection left behind, or
 * undefined when its error is an answer of the server's to pass on as it is.
 */
function lostStatement(text: string, error: unknown): Error | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.message === NOT_SENT) return new TransactionLost(error, 'statement');
  const { code } = error as { code?: unknown };
  const lost =
    endedSession(code) ||
    (error.message === TERMINATED && code === undefined) ||
    (typeof code === 'string' && NETWORK.has(code));
  if (!lost) return undefined;
  return READS.test(text)
    ? new TransactionLost(error, 'statement')
    : new CommitUnknown(error, 'statement');
}

/**
 * Makes a failed ROLLBACK on `client` a TransactionLost, or a CommitUnknown when it followed a
 * COMMIT that failed once sent; and a statement outside any transaction that failed with its
 * connection the one of the two that says what it left (`lostStatement`).
 */
export function markLostTransactions(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  // Whether a transaction is under way (from its begin to its COMMIT or ROLLBACK, sent); of it:
  // whether it is read only, and whether its COMMIT reached the server (Kysely sends ROLLBACK
  // right after a COMMIT that failed, and only then).
  let inTransaction = false;
  let readOnly = false;
  let commitSent = false;
  client.query = ((...args: unknown[]) => {
    const [text] = args;
    const sent = query(...args);
    if (!(sent instanceof Promise) || typeof text !== 'string') return sent;
    if (!inTransaction) {
      const begins = text === 'begin' || text.startsWith('start transaction');
      if (begins) {
        inTransaction = true;
        // A read-only transaction (store/read-snapshot.ts) wrote nothing: its lost COMMIT is no
        // loss.
        readOnly = text.endsWith(' read only');
        commitSent = false;
      }
      return sent.catch((error: unknown) => {
        if (begins) inTransaction = false;
        throw lostStatement(text, error) ?? error;
      });
    }
    if (text === 'commit') {
      commitSent = !readOnly;
      // Ended once committed; a failed COMMIT is followed by the ROLLBACK, still inside.
      return sent.then(
        (result: unknown) => {
          inTransaction = false;
          return result;
        },
        (error: unknown) => {
          if (neverRead(error)) commitSent = false;
          throw error;
        },
      );
    }
    if (text !== 'rollback') return sent;
    inTransaction = false;
    const unknown = commitSent;
    return sent.catch((error: unknown) => {
      throw unknown ? new CommitUnknown(error) : new TransactionLost(error);
    });
  }) as never;
}

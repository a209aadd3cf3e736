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
// reads back what it wrote, or sends it again with the same Idempotency-Key. Only when the COMMIT
// itself was never sent (the connection had already failed) is it TransactionLost.

/** The code of TransactionLost: this service's own, not a SQLSTATE. */
export const TRANSACTION_LOST = 'TRANSACTION_LOST';

export class TransactionLost extends Error {
  readonly code = TRANSACTION_LOST;

  constructor(cause: unknown) {
    super(
      `the connection was lost before the transaction committed, so nothing of it stayed: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = 'TransactionLost';
  }
}

/** The code of CommitUnknown: this service's own, not a SQLSTATE. */
export const COMMIT_UNKNOWN = 'COMMIT_UNKNOWN';

export class CommitUnknown extends Error {
  readonly code = COMMIT_UNKNOWN;

  constructor(cause: unknown) {
    super(
      `the connection was lost during the commit, so whether the transaction stayed is unknown: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
    this.name = 'CommitUnknown';
  }
}

/** pg's error for a query on a client whose connection had already failed: never sent. */
export const NOT_SENT = 'Client has encountered a connection error and is not queryable';

type Query = (...args: unknown[]) => unknown;

/**
 * Makes a failed ROLLBACK on `client` a TransactionLost, or a CommitUnknown when it followed a
 * COMMIT that failed once sent.
 */
export function markLostTransactions(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  let previous: unknown;
  let commitSent = false;
  client.query = ((...args: unknown[]) => {
    const [text] = args;
    const after = previous;
    previous = text;
    const sent = query(...args);
    if (!(sent instanceof Promise)) return sent;
    if (text === 'commit') {
      commitSent = true;
      return sent.catch((error: unknown) => {
        if (error instanceof Error && error.message === NOT_SENT) commitSent = false;
        throw error;
      });
    }
    if (text !== 'rollback') return sent;
    const unknown = after === 'commit' && commitSent;
    return sent.catch((error: unknown) => {
      throw unknown ? new CommitUnknown(error) : new TransactionLost(error);
    });
  }) as never;
}

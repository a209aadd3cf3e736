// A transaction whose work failed because its connection was lost (the server ended the session:
// idle inside its transaction past DATABASE_STATEMENT_TIMEOUT_MS, an operator's
// pg_terminate_backend, a restart) is rolled back by Kysely with a ROLLBACK on the same
// connection, which fails too, and Kysely then throws the ROLLBACK's error ("Connection terminated
// unexpectedly", with no code) in place of the work's. That error alone says nothing of what was
// written; here it is known: no COMMIT was sent on the connection, so nothing of the transaction
// stayed. It is made TransactionLost, which is answered 503 database_busy (conflicts.ts). A
// ROLLBACK that follows a COMMIT (the COMMIT failed: it may have been applied) is left as it is.

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

type Query = (...args: unknown[]) => unknown;

/** Makes a failed ROLLBACK on `client` that followed no COMMIT a TransactionLost. */
export function markLostTransactions(client: { query: unknown }): void {
  const query = (client.query as Query).bind(client);
  let previous: unknown;
  client.query = ((...args: unknown[]) => {
    const [text] = args;
    const after = previous;
    previous = text;
    const sent = query(...args);
    if (text !== 'rollback' || after === 'commit' || !(sent instanceof Promise)) return sent;
    return sent.catch((error: unknown) => {
      throw new TransactionLost(error);
    });
  }) as never;
}

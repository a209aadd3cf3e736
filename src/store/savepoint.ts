import { sql } from 'kysely';
import { batchOf } from './batch.js';
import type { Executor } from './database.js';

// A savepoint inside a transaction that is already open (the use-case runner's, or a group-commit
// batch's): what `work` wrote is undone when it throws, and the transaction goes on, so the caller
// can write something else in its place (the error an Idempotency-Key answers with). Its own name,
// so it nests inside the group writer's savepoint around each write. In a group-commit batch,
// what `work` held in the batch's scope (batch.ts: funds, queued rows) is rolled back with it.

const SAVEPOINT = sql.raw('use_case_attempt');

export type Attempt<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** Runs `work` in a savepoint of `tx`; an error it throws is returned, its writes rolled back. */
export async function inSavepoint<T>(tx: Executor, work: () => Promise<T>): Promise<Attempt<T>> {
  await sql`savepoint ${SAVEPOINT}`.execute(tx);
  const batch = batchOf(tx);
  const mark = batch?.mark();
  let attempt: Attempt<T>;
  try {
    attempt = { ok: true, value: await work() };
  } catch (error) {
    await sql`rollback to savepoint ${SAVEPOINT}`.execute(tx);
    if (mark !== undefined) batch?.restore(mark);
    attempt = { ok: false, error };
  }
  await sql`release savepoint ${SAVEPOINT}`.execute(tx);
  return attempt;
}

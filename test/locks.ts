// PostgreSQL lock tests: a transaction held open with its locks, and the backends waiting on a
// lock, which PostgreSQL shows as progress (a statement blocked) rather than after some time.
import { sql } from 'kysely';
import type { Transaction } from 'kysely';
import type { Db } from '../src/store/database.js';
import type { Database as Schema } from '../src/store/schema.js';

export interface HeldLocks {
  /** Ends the transaction (it commits) and waits for it. */
  release(): Promise<void>;
}

/**
 * Opens a transaction, runs `take` in it and keeps it open until released: resolves once `take`
 * is done, so its locks are held; rejects if `take` fails.
 */
export async function holdLocks(
  db: Db,
  take: (trx: Transaction<Schema>) => Promise<unknown>,
): Promise<HeldLocks> {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = (): void => undefined;
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const open = db.transaction().execute(async (trx) => {
    await take(trx);
    holding();
    await released;
  });
  await Promise.race([held, open]);
  return {
    async release() {
      release();
      await open;
    },
  };
}

/** How many backends of this database are waiting for a lock now. */
export async function waitingOnLocks(db: Db): Promise<number> {
  const r = await sql<{ n: string }>`
    select count(*) as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock'`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

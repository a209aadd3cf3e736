import type { Clock, WallClock } from '../clock.js';
import { iso } from '../clock.js';
import type { Db } from '../store/database.js';
import { purgeExpiredRecords } from '../store/repositories/idempotency-repository.js';
import { expireTestCredit } from './ledger.js';

// Periodic clean-up of money state, run by the money-housekeeping worker: test credit past its
// expiry is written off through the ledger, and Idempotency-Key records past their replay window
// are forgotten. Both follow rows, so any number of processes may run it at once.

export interface HousekeepingDeps {
  readonly store: { readonly db: Db };
  /** Service time: when credit expires and a replay window ends. */
  readonly clock: Clock;
  /** Real time: a claim's lease, which bounds real work. */
  readonly wallClock: WallClock;
}

export interface HousekeepingRun {
  /** Organisations whose expired test credit was written off. */
  readonly testCreditExpired: number;
  /** Idempotency records removed. */
  readonly idempotencyPurged: number;
}

export async function runMoneyHousekeeping(deps: HousekeepingDeps): Promise<HousekeepingRun> {
  const now = deps.clock.now();
  const testCreditExpired = await expireTestCredit(deps.store.db, now);
  const idempotencyPurged = await purgeExpiredRecords(
    deps.store.db,
    iso(now),
    iso(deps.wallClock.now()),
  );
  return { testCreditExpired, idempotencyPurged };
}

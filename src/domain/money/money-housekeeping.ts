import type { Clock, WallClock } from '../../clock.js';
import { iso } from '../../clock.js';
import type { Db } from '../../store/database.js';
import { deleteExpiredPreviousKeys } from '../../store/repositories/api-key-repository.js';
import { purgeExpiredRecords } from '../../store/repositories/idempotency-repository.js';
import { expireTestCredit } from './ledger.js';

// Periodic clean-up, run by the money-housekeeping worker: test credit past its expiry is written
// off through the ledger, Idempotency-Key records past their replay window are forgotten, and so
// are API keys rotated out whose grace period has ended. All follow rows, so any number of
// processes may run it at once.

export interface HousekeepingDeps {
  readonly store: { readonly db: Db };
  /** Service time: when credit expires, a replay window ends and a grace period is over. */
  readonly clock: Clock;
  /** Real time: a claim's lease, which bounds real work. */
  readonly wallClock: WallClock;
}

export interface HousekeepingRun {
  /** Organisations whose expired test credit was written off. */
  readonly testCreditExpired: number;
  /** Idempotency records removed. */
  readonly idempotencyPurged: number;
  /** Rotated-out API keys removed once their grace period was over. */
  readonly previousKeysPruned: number;
}

export async function runMoneyHousekeeping(deps: HousekeepingDeps): Promise<HousekeepingRun> {
  const now = deps.clock.now();
  const testCreditExpired = await expireTestCredit(deps.store.db, now);
  const idempotencyPurged = await purgeExpiredRecords(
    deps.store.db,
    iso(now),
    iso(deps.wallClock.now()),
  );
  const previousKeysPruned = await deleteExpiredPreviousKeys(deps.store.db, iso(now));
  return { testCreditExpired, idempotencyPurged, previousKeysPruned };
}

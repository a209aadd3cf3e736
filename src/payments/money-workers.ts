import type { FastifyBaseLogger } from 'fastify';
import { iso, systemClock } from '../clock.js';
import type { AppDeps } from '../deps.js';
import { expireTestCredit } from '../domain/ledger.js';
import { reconcileTopUps } from '../domain/top-up.js';
import { purgeExpiredRecords } from '../store/repositories/idempotency-repository.js';
import type { Worker } from '../workers.js';
import { intervalWorker } from '../workers.js';

// Background work on money. State lives in rows (topups.status/next_check_at, test credit
// expiry, idempotency expiry), so any number of server processes may run these at once.

/**
 * Asks the processor about charges whose answer was lost, and credits each at most once. The
 * first pass, as the process starts, looks at every top-up in doubt at once (a previous process
 * may have died mid-charge); later passes at those whose check is due.
 */
export function createTopUpReconciler(deps: AppDeps, log: FastifyBaseLogger): Worker {
  let started = false;
  return intervalWorker(
    'top-up-reconciler',
    deps.config.topUpReconcileIntervalMs,
    async () => {
      const atStart = !started;
      await reconcileTopUps(deps, { atStart });
      started = true;
    },
    (error) => log.error({ err: error }, 'top-up reconciliation failed'),
  );
}

/** Writes off expired test credit and forgets idempotency records past their 24 hours. */
export function createMoneyHousekeeping(deps: AppDeps, log: FastifyBaseLogger): Worker {
  return intervalWorker(
    'money-housekeeping',
    deps.config.schedulerIntervalMs,
    async () => {
      const now = deps.clock.now();
      await expireTestCredit(deps.store.db, now);
      await purgeExpiredRecords(deps.store.db, iso(now), iso(systemClock.now()));
    },
    (error) => log.error({ err: error }, 'money housekeeping failed'),
  );
}

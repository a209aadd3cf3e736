import type { AppDeps } from '../deps.js';
import { runMoneyHousekeeping } from '../domain/money/money-housekeeping.js';
import { reconcileTopUps } from '../domain/money/top-up.js';
import type { Worker, WorkerLog } from './worker.js';
import { intervalWorker, turnFailed } from './worker.js';

// Background work on money. State lives in rows (topups.status/next_check_at, test credit
// expiry, idempotency expiry), so any number of server processes may run these at once.

export type MoneyWorkerDeps = Pick<
  AppDeps,
  'config' | 'store' | 'clock' | 'wallClock' | 'random' | 'payments'
>;

/**
 * Asks the processor about charges whose answer was lost, and credits each at most once. The
 * first pass, as the process starts, looks at every top-up in doubt at once (a previous process
 * may have died mid-charge); later passes at those whose check is due.
 */
export function createTopUpReconciler(deps: MoneyWorkerDeps, log: WorkerLog): Worker {
  let started = false;
  return intervalWorker(
    'top-up-reconciler',
    deps.config.topUpReconcileIntervalMs,
    deps.wallClock,
    async () => {
      const atStart = !started;
      await reconcileTopUps(deps, { atStart });
      started = true;
    },
    turnFailed(log, 'top-up reconciliation failed'),
  );
}

/**
 * Writes off expired test credit, forgets idempotency records past their 24 hours and API keys
 * past their grace period. Expiry follows the service clock; a claim's lease, the wall clock (it
 * bounds real work).
 */
export function createMoneyHousekeeping(deps: MoneyWorkerDeps, log: WorkerLog): Worker {
  return intervalWorker(
    'money-housekeeping',
    deps.config.schedulerIntervalMs,
    deps.wallClock,
    () => runMoneyHousekeeping(deps),
    turnFailed(log, 'money housekeeping failed'),
  );
}

import type { AppDeps } from '../deps.js';
import { cryptoRandom } from '../random.js';
import { createCallbackWorker } from './callback-delivery.js';
import { createCallbackRetention } from './callback-retention.js';
import { createCountFold } from './count-fold.js';
import { createDeferredWorker } from './deferred-requests.js';
import { createLifecycleWorker } from './lifecycle-scheduler.js';
import { createMoneyHousekeeping, createTopUpReconciler } from './money.js';
import type { Worker, WorkerLog } from './worker.js';

export type { Worker, WorkerLog } from './worker.js';

/** Every background worker of a server process. Areas add theirs here. */
export function createWorkers(deps: AppDeps, log: WorkerLog): Worker[] {
  return [
    // Retry jitter comes from the operating system's generator: under SIM_SEED, deliveries
    // failing in the background would otherwise move the identifiers' sequence at random moments.
    createCallbackWorker({ ...deps, random: cryptoRandom }, log, { metrics: deps.metrics }),
    createCallbackRetention(deps, log),
    createLifecycleWorker(deps, log),
    createTopUpReconciler(deps, log),
    createMoneyHousekeeping(deps, log),
    createDeferredWorker(deps, log),
    createCountFold(deps, log),
  ];
}

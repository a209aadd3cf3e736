import type { AppDeps } from '../deps.js';
import { foldCounters } from '../domain/counters/fold-counters.js';
import type { Worker, WorkerLog } from './worker.js';
import { intervalWorker, turnFailed } from './worker.js';

/**
 * PostgreSQL: folds the counter changes that writes leave in count_deltas (035) into the
 * counters, every scheduler interval (domain/counters/fold-counters.ts). Nothing to do on SQLite.
 */
export function createCountFold(
  deps: Pick<AppDeps, 'config' | 'store' | 'wallClock'>,
  log: WorkerLog,
): Worker {
  return intervalWorker(
    'count-fold',
    deps.config.schedulerIntervalMs,
    deps.wallClock,
    () => foldCounters(deps),
    turnFailed(log, 'folding counter changes failed'),
  );
}

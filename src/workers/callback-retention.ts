import type { AppDeps } from '../deps.js';
import { pruneCallbackHistory } from '../domain/callbacks/retention.js';
import type { Worker, WorkerLog } from './worker.js';
import { intervalWorker, turnFailed } from './worker.js';

/** Deletes finished callbacks past CALLBACK_RETENTION_DAYS (domain/callbacks/retention.ts). */
export function createCallbackRetention(
  deps: Pick<AppDeps, 'config' | 'store' | 'clock' | 'wallClock'>,
  log: WorkerLog,
): Worker {
  return intervalWorker(
    'callback-retention',
    deps.config.schedulerIntervalMs,
    deps.wallClock,
    () => pruneCallbackHistory(deps),
    turnFailed(log, 'callback retention failed'),
  );
}

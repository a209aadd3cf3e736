import type { AppDeps } from '../deps.js';
import { runDeferredRequests } from '../domain/deferred/process.js';
import type { Worker, WorkerLog } from './worker.js';
import { intervalWorker, turnFailed } from './worker.js';

export type DeferredWorkerDeps = Pick<
  AppDeps,
  'config' | 'store' | 'clock' | 'wallClock' | 'random'
>;

/** How often the worker looks for accepted orders and applies (wall clock). */
export const DEFERRED_INTERVAL_MS = 250;

/**
 * Processes the orders and applies accepted for the background (domain/deferred/): claim due
 * rows with a lease, run each, record done or refused in the same transaction as the work.
 */
export function createDeferredWorker(deps: DeferredWorkerDeps, log: WorkerLog): Worker {
  // This process's name on the leases it takes; a restart is a new holder.
  const owner = deps.random.uuid();
  return intervalWorker(
    'deferred-requests',
    DEFERRED_INTERVAL_MS,
    deps.wallClock,
    async () => {
      const turn = await runDeferredRequests(deps, owner, (error, request) =>
        log.error(
          { err: error, reference: request.reference, kind: request.kind },
          'background request failed; it will be tried again',
        ),
      );
      if (turn.done + turn.failed > 0) log.info(turn, 'background requests processed');
    },
    turnFailed(log, 'deferred-requests worker failed'),
  );
}

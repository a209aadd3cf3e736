import type { AppDeps } from '../deps.js';
import { runLifecycleScheduler } from '../domain/esims/lifecycle/scheduler.js';
import type { Worker, WorkerLog } from './worker.js';
import { intervalWorker, turnFailed } from './worker.js';

export type LifecycleWorkerDeps = Pick<AppDeps, 'config' | 'store' | 'clock' | 'wallClock'>;

/**
 * Applies due lifecycle transitions every SCHEDULER_INTERVAL_MS; the rows say what is due. Due
 * is judged by the service clock (the simulator moves it); the interval runs on the wall clock.
 */
export function createLifecycleWorker(deps: LifecycleWorkerDeps, log: WorkerLog): Worker {
  return intervalWorker(
    'lifecycle-scheduler',
    deps.config.schedulerIntervalMs,
    deps.wallClock,
    async () => {
      const run = await runLifecycleScheduler({ db: deps.store.db, clock: deps.clock });
      if (run.provisioned + run.expired > 0) log.info(run, 'lifecycle transitions applied');
    },
    turnFailed(log, 'lifecycle scheduler failed'),
  );
}

import type { FastifyBaseLogger } from 'fastify';
import type { AppDeps } from '../../deps.js';
import type { Worker } from '../../workers.js';
import { intervalWorker } from '../../workers.js';
import { runLifecycleScheduler } from './scheduler.js';

/** Applies due lifecycle transitions every SCHEDULER_INTERVAL_MS; the rows say what is due. */
export function createLifecycleWorker(deps: AppDeps, log: FastifyBaseLogger): Worker {
  return intervalWorker(
    'lifecycle-scheduler',
    deps.config.schedulerIntervalMs,
    async () => {
      const run = await runLifecycleScheduler({ db: deps.store.db, clock: deps.clock });
      if (run.provisioned + run.expired > 0) log.info(run, 'lifecycle transitions applied');
    },
    (error) => log.error({ err: error }, 'lifecycle scheduler failed'),
  );
}

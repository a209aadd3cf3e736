import type { FastifyBaseLogger } from 'fastify';
import { createCallbackWorker } from './callbacks/delivery-worker.js';
import type { AppDeps } from './deps.js';
import { createLifecycleWorker } from './domain/lifecycle/scheduler-worker.js';
import { createMoneyHousekeeping, createTopUpReconciler } from './payments/money-workers.js';

/** Background work: state lives in rows; a timer only wakes the worker. */
export interface Worker {
  readonly name: string;
  /** Starts polling; returns at once. */
  start(): void;
  /** Stops polling and finishes or releases in-flight work. */
  stop(): Promise<void>;
}

/** Runs fn every intervalMs (never overlapping) until stopped. */
export function intervalWorker(
  name: string,
  intervalMs: number,
  fn: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  const tick = (): void => {
    if (stopped) return;
    running = fn()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  return {
    name,
    start() {
      if (!stopped) return;
      stopped = false;
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await running;
    },
  };
}

/** Every background worker of a server process. Areas add theirs here. */
export function createWorkers(deps: AppDeps, log: FastifyBaseLogger): Worker[] {
  return [
    createCallbackWorker(deps, log, { metrics: deps.metrics }),
    createLifecycleWorker(deps, log),
    createTopUpReconciler(deps, log),
    createMoneyHousekeeping(deps, log),
  ];
}

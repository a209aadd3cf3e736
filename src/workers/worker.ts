import type { WallClock } from '../clock.js';
import { databaseBusy } from '../store/conflicts.js';

/** Background work: state lives in rows; a timer only wakes the worker. */
export interface Worker {
  readonly name: string;
  /** Starts polling; returns at once. */
  start(): void;
  /** Stops polling and finishes or releases in-flight work. */
  stop(): Promise<void>;
}

/** What a worker logs through; the server passes its logger, tests a silent one. */
export interface WorkerLog {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

/**
 * Runs fn every intervalMs of the wall clock (never overlapping) until stopped. One turn is one
 * pass of the worker's stages; a failed turn is logged and the next one runs on schedule.
 */
export function intervalWorker(
  name: string,
  intervalMs: number,
  timers: Pick<WallClock, 'setTimer'>,
  fn: () => Promise<unknown>,
  onError: (error: unknown) => void,
): Worker {
  let cancel: (() => void) | undefined;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  const tick = (): void => {
    cancel = undefined;
    if (stopped) return;
    running = fn()
      .catch(onError)
      .finally(() => {
        running = undefined;
        if (!stopped) cancel = timers.setTimer(intervalMs, tick);
      });
  };
  return {
    name,
    start() {
      if (!stopped) return;
      stopped = false;
      cancel = timers.setTimer(0, tick);
    },
    async stop() {
      stopped = true;
      cancel?.();
      await running;
    },
  };
}

/**
 * How a worker tells a failed turn: a warning when the database was only busy (PostgreSQL out of
 * connections or in a conflict after its reruns, SQLite held by another process), which the next
 * turn runs again as it would anyway; an error for anything else.
 */
export function turnFailed(log: WorkerLog, message: string): (error: unknown) => void {
  return (error) => {
    if (databaseBusy(error))
      log.warn({ err: error }, `${message}: the database was busy; the next turn tries again`);
    else log.error({ err: error }, message);
  };
}

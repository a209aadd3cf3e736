import { recordDeliveryOutcomes } from '../domain/callbacks/delivery-queue.js';
import type { DeliveryContext, DeliveryState } from './callback-stages.js';
import type { WorkerLog } from './worker.js';

/** How long an outcome may wait for others to share its transaction. */
const FLUSH_DELAY_MS = 5;

/**
 * Record: writes outcomes in batches, one writer at a time. While a batch is being written the
 * next one accumulates, so a busy worker writes a few large transactions, not many small.
 */
export interface OutcomeWriter {
  /** Writes once a batch has gathered, or a few milliseconds after the first outcome. */
  soon(): void;
  /** Waits until every outcome so far is written. */
  flush(): Promise<void>;
}

export function createOutcomeWriter(
  ctx: DeliveryContext,
  state: DeliveryState,
  log: Pick<WorkerLog, 'warn'>,
): OutcomeWriter {
  let writing: Promise<void> | undefined;
  let cancelTimer: (() => void) | undefined;

  async function write(): Promise<void> {
    while (state.outcomes.length > 0) {
      const batch = state.outcomes;
      state.outcomes = [];
      try {
        await recordDeliveryOutcomes(ctx.deps, batch);
      } catch (error) {
        // The rows stay leased; when the lease lapses they are delivered again (at least once).
        log.warn({ err: error, events: batch.length }, 'could not record callback outcomes');
      }
    }
  }

  function now(): void {
    cancelTimer?.();
    cancelTimer = undefined;
    writing ??= write().finally(() => {
      writing = undefined;
    });
  }

  return {
    soon() {
      if (state.outcomes.length >= ctx.concurrency / 2) now();
      else cancelTimer ??= ctx.wallClock.setTimer(FLUSH_DELAY_MS, now);
    },
    async flush() {
      for (;;) {
        if (writing !== undefined) await writing;
        else if (state.outcomes.length > 0) now();
        else return;
      }
    },
  };
}

import { ClaimFailed, recordDeliveryOutcomes } from '../domain/callbacks/delivery-queue.js';
import type { Outcome } from '../store/repositories/callback-repository.js';
import type { DeliveryContext, DeliveryState } from './callback-stages.js';
import { claim, claimRoom } from './callback-stages.js';
import type { WorkerLog } from './worker.js';

/** How long an outcome may wait for others to share its transaction. */
const FLUSH_DELAY_MS = 5;

/**
 * Record: writes outcomes in batches, one writer at a time. While a batch is being written the
 * next one accumulates, so a busy worker writes a few large transactions, not many small. When
 * the worker may claim more events, on SQLite, a batch is written in that claim's transaction
 * (claim in callback-stages.ts): one commit for both, and the room the outcomes free under the
 * organisations' caps is claimed at once.
 */
export interface OutcomeWriter {
  /** Writes once a batch has gathered, or a few milliseconds after the first outcome. */
  soon(): void;
  /** Settles when the next batch of outcomes has been written (room under the caps again). */
  recorded(): Promise<void>;
  /** Waits until every outcome so far is written. */
  flush(): Promise<void>;
  /** Whether a batch is being written now. */
  busy(): boolean;
}

export function createOutcomeWriter(
  ctx: DeliveryContext,
  state: DeliveryState,
  log: Pick<WorkerLog, 'warn'>,
): OutcomeWriter {
  let writing: Promise<void> | undefined;
  // One promise for every waiter on the next write, settled when it ends.
  let next: { promise: Promise<void>; settle: () => void } | undefined;
  let cancelTimer: (() => void) | undefined;

  /** Writes a batch, with a claim when one may be made. */
  async function record(batch: Outcome[]): Promise<void> {
    const room = ctx.recordWithClaims ? claimRoom(ctx, state) : 0;
    if (room > 0) {
      await claim(ctx, state, room, batch);
      return;
    }
    await recordDeliveryOutcomes(ctx.deps, batch);
    // Recorded outcomes free room under the organisations' caps: a claim may find more.
    state.claimAgain = true;
  }

  async function write(): Promise<void> {
    while (state.outcomes.length > 0) {
      const batch = state.outcomes;
      state.outcomes = [];
      try {
        await record(batch);
      } catch (error) {
        if (error instanceof ClaimFailed) {
          // The outcomes were recorded alone; the worker claims again at its next turn.
          state.claimAgain = true;
          log.warn({ err: error.reason }, 'could not claim callbacks');
        } else {
          // The rows stay leased; when the lease lapses they are delivered again (at least once).
          log.warn({ err: error, events: batch.length }, 'could not record callback outcomes');
        }
      }
      next?.settle();
      next = undefined;
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
    recorded() {
      if (next === undefined) {
        let settle = (): void => undefined;
        const promise = new Promise<void>((resolve) => {
          settle = resolve;
        });
        next = { promise, settle };
      }
      return next.promise;
    },
    busy: () => writing !== undefined,
    async flush() {
      for (;;) {
        if (writing !== undefined) await writing;
        else if (state.outcomes.length > 0) now();
        else return;
      }
    },
  };
}

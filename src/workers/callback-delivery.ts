import { guardFor } from '../callbacks/address-guard.js';
import type { CallbackTransport } from '../callbacks/http-sender.js';
import { createHttpSender } from '../callbacks/http-sender.js';
import { createThreadSender } from '../callbacks/sender-thread.js';
import { iso } from '../clock.js';
import { reclaimLapsedDeliveries, releaseDeliveries } from '../domain/callbacks/delivery-queue.js';
import type { DeliveryContext, DeliveryState } from './callback-stages.js';
import { claim, claimRoom, emptyState, sendQueued } from './callback-stages.js';
import type { OutcomeWriter } from './outcome-writer.js';
import { createOutcomeWriter } from './outcome-writer.js';
import { createDeliveryThread, deliveryThreadFits } from './delivery-thread.js';
import type {
  CallbackWorker,
  CallbackWorkerDeps,
  CallbackWorkerOptions,
} from './callback-worker.js';
import type { WorkerLog } from './worker.js';

// The delivery worker: claims due events in batches (a lease in the row, so a crashed instance's
// claims are taken over when the lease lapses), sends them with bounded concurrency over
// keep-alive connections, and records the outcomes in batches: three stages, claim
// (callback-stages.ts), act (callback-stages.ts) and record (outcome-writer.ts), run by the turn
// below. State lives in the rows; a timer only wakes the loop when it has gone idle.
//
// Two clocks: when an event is due (next_attempt_at) is domain time, from deps.clock, which the
// simulator and tests advance to bring retries forward. A lease (locked_until) bounds real work —
// a send and its timeouts — so it runs on deps.wallClock: advancing the simulated clock, on this
// instance or another, never makes a lease under way look lapsed, so two instances cannot send
// the same event at once.

export type { WorkerLog } from './worker.js';
export type {
  CallbackWorker,
  CallbackWorkerDeps,
  CallbackWorkerOptions,
} from './callback-worker.js';

/**
 * How long a claim woken by a new event waits for others to join it: one claim per event would
 * cost a transaction each (about half a millisecond on SQLite) for what one claim leases in bulk.
 */
const GATHER_MS = 10;

/**
 * The HTTP sender: on a thread of its own (sender-thread.ts) when CALLBACK_SENDER_THREAD is on,
 * unless a resolver is injected (tests that play DNS answers, which a thread cannot be handed).
 */
function senderFor(deps: CallbackWorkerDeps, options: CallbackWorkerOptions): CallbackTransport {
  const { config } = deps;
  const common = {
    connectTimeoutMs: config.callbackConnectTimeoutMs,
    timeoutMs: config.callbackTimeoutMs,
    requireHttps: config.mode === 'production',
    maxSockets: config.callbackConcurrency,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
  };
  const guard = guardFor(config);
  if (config.callbackSenderThread && deps.resolver === undefined) {
    return createThreadSender({
      ...common,
      ...(guard === undefined ? {} : { guardAllowCidrs: config.callbackAllowCidrs }),
    });
  }
  return createHttpSender({
    ...common,
    guard,
    ...(deps.resolver === undefined ? {} : { resolver: deps.resolver }),
  });
}

function deliveryContext(
  deps: CallbackWorkerDeps,
  options: CallbackWorkerOptions,
  log: Pick<WorkerLog, 'warn'>,
): DeliveryContext {
  const { config } = deps;
  const transport = options.transport ?? senderFor(deps, options);
  return {
    deps,
    clock: deps.clock,
    wallClock: deps.wallClock,
    transport,
    instanceId: options.instanceId ?? deps.random.uuid().slice(0, 8),
    queued: deps.callbackQueued,
    concurrency: config.callbackConcurrency,
    batchSize: config.callbackConcurrency * 2,
    // A lease covers the wait in the local queue and the send itself, each bounded by the timeout.
    leaseSeconds: (2 * config.callbackTimeoutMs + config.callbackConnectTimeoutMs + 1000) / 1000,
    // One writer at a time: outcomes and the next claim share a transaction (claimDeliveries).
    recordWithClaims: deps.store.dialect === 'sqlite',
    metrics: options.metrics,
    log,
  };
}

/**
 * Calls `fn` GATHER_MS after this process next queues an event (never, without a signal);
 * returns a function that cancels the call, whether still waiting for the event or the delay.
 */
function afterQueued(ctx: DeliveryContext, fn: () => void): (() => void) | undefined {
  let cancel = ctx.queued?.once(() => {
    cancel = ctx.wallClock.setTimer(GATHER_MS, fn);
  });
  return cancel === undefined ? undefined : () => cancel?.();
}

/**
 * One turn: runs the stages until nothing is due (or the worker is stopping); true when anything
 * was claimed. The local queue is topped up in batches while sends are under way, so a busy
 * receiver never waits on the store and the store sees few, large claims.
 */
async function turn(
  ctx: DeliveryContext,
  state: DeliveryState,
  writer: OutcomeWriter,
): Promise<boolean> {
  // Claims made by the outcome writer during the turn count as the turn's work too.
  const claimedBefore = state.claimed;
  let worked = false;
  const wallNow = ctx.wallClock.now();
  if (wallNow.getTime() >= state.lapsedCheckDue) {
    state.lapsedCheckDue = wallNow.getTime() + ctx.deps.config.callbackWorkerIntervalMs;
    const lapsed = await reclaimLapsedDeliveries(ctx.deps, {
      leaseNow: iso(wallNow),
      at: iso(ctx.clock.now()),
    });
    worked = lapsed > 0;
  }
  state.claimAgain = true;
  for (;;) {
    const room = claimRoom(ctx, state);
    if (state.claimAgain && room > 0) {
      // Outcomes waiting, unless the writer is recording others, are recorded with the claim (SQLite).
      const outcomes = writer.busy() || !ctx.recordWithClaims ? [] : state.outcomes.splice(0);
      await claim(ctx, state, room, outcomes);
    }
    sendQueued(ctx, state);
    if (state.inFlight.size === 0) {
      await writer.flush();
      if (state.queue.length === 0 || state.stopping)
        return worked || state.claimed > claimedBefore;
      continue;
    }
    // Wait for a send to end, for outcomes to be recorded (room under the caps again), or for
    // the poll interval (events that came due meanwhile): a receiver that never answers holds
    // its own sends until their timeout, never another organisation's next claim.
    let cancel: (() => void) | undefined;
    let unheard: (() => void) | undefined;
    const tick = new Promise<void>((resolve) => {
      cancel = ctx.wallClock.setTimer(ctx.deps.config.callbackWorkerIntervalMs, () => {
        state.claimAgain = true;
        resolve();
      });
    });
    // Events queued by this process meanwhile: a claim may find them, once others have joined.
    const queued = new Promise<void>((resolve) => {
      unheard = afterQueued(ctx, () => {
        state.claimAgain = true;
        resolve();
      });
    });
    await Promise.race([...state.inFlight, tick, queued, writer.recorded()]);
    cancel?.();
    unheard?.();
    writer.soon();
    if (state.stopping) return worked || state.claimed > claimedBefore;
  }
}

/** Stopping: sends under way finish (each bounded by the timeout); unsent claims go back at once. */
async function handBack(
  ctx: DeliveryContext,
  state: DeliveryState,
  writer: OutcomeWriter,
  log: Pick<WorkerLog, 'warn'>,
): Promise<void> {
  await Promise.allSettled([...state.inFlight]);
  // After the writer's last batch: a claim it made with one is handed back too.
  await writer.flush();
  const unsent = state.queue.splice(0).map((item) => item.event.id);
  try {
    await releaseDeliveries(ctx.deps, unsent, ctx.instanceId, iso(ctx.clock.now()));
  } catch (error) {
    log.warn({ err: error }, 'could not release unsent callbacks; their lease will lapse');
  }
}

/**
 * The delivery worker: on a thread of its own with its own database connection when
 * CALLBACK_DELIVERY_THREAD is on and the deps allow it (delivery-thread.ts), else on this event loop.
 */
export function createCallbackWorker(
  deps: CallbackWorkerDeps,
  /** Warnings; the thread's failure is an error, where the log has that level. */
  log: Pick<WorkerLog, 'warn'> & Partial<Pick<WorkerLog, 'error'>>,
  options: CallbackWorkerOptions = {},
): CallbackWorker {
  if (!deliveryThreadFits(deps, options)) return createLoopWorker(deps, log, options);
  const instanceId = options.instanceId ?? deps.random.uuid().slice(0, 8);
  return createDeliveryThread(deps, log, options, instanceId, () =>
    createLoopWorker(deps, log, { ...options, instanceId }),
  );
}

function createLoopWorker(
  deps: CallbackWorkerDeps,
  log: Pick<WorkerLog, 'warn'>,
  options: CallbackWorkerOptions,
): CallbackWorker {
  const ctx = deliveryContext(deps, options, log);
  const state = emptyState();
  const writer = createOutcomeWriter(ctx, state, log);
  // The loop: idle until the timer fires, then one turn, then again at once if it did work.
  const loop: { running: boolean; cancel?: () => void; turn?: Promise<void> } = { running: false };

  // Idle, the loop waits for the poll interval or for this process to queue an event, whichever
  // comes first (other instances' events, and retries coming due, wait for the poll).
  function wake(delayMs: number): void {
    if (!loop.running) return;
    const cancelTimer = ctx.wallClock.setTimer(delayMs, run);
    const unheard =
      delayMs > 0
        ? afterQueued(ctx, () => {
            cancelTimer();
            run();
          })
        : undefined;
    loop.cancel = () => {
      cancelTimer();
      unheard?.();
    };
    function run(): void {
      unheard?.();
      loop.cancel = undefined;
      loop.turn = turn(ctx, state, writer)
        .catch((error: unknown) => {
          log.warn({ err: error }, 'callback delivery turn failed');
          return false;
        })
        .then((worked) => {
          loop.turn = undefined;
          wake(worked ? 0 : deps.config.callbackWorkerIntervalMs);
        });
    }
  }

  return {
    name: 'callback-delivery',
    instanceId: ctx.instanceId,
    start() {
      if (loop.running) return;
      loop.running = true;
      state.stopping = false;
      wake(0);
    },
    async stop() {
      loop.running = false;
      state.stopping = true;
      loop.cancel?.();
      await loop.turn;
      await handBack(ctx, state, writer, log);
      ctx.transport.close();
    },
    async drain() {
      if (loop.running) throw new Error('drain() is for a worker that has not been started');
      while (await turn(ctx, state, writer)) {
        /* keep going while turns do work */
      }
    },
  };
}

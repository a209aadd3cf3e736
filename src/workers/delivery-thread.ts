import { threadEntry } from '../thread-entry.js';
import { Worker as Thread } from 'node:worker_threads';
import { OffsetClock, systemClock, systemWallClock } from '../clock.js';
import { resolveMasterKey } from '../security/master-key.js';
import type {
  CallbackWorker,
  CallbackWorkerDeps,
  CallbackWorkerOptions,
} from './callback-worker.js';
import type {
  DeliveryThreadSettings,
  FromDeliveryThread,
  ToDeliveryThread,
} from './delivery-thread-messages.js';
import type { WorkerLog } from './worker.js';

// The delivery worker on a thread of its own (CALLBACK_DELIVERY_THREAD, delivery-thread-worker.ts):
// claims, sends and records run there on a database connection of their own, and the service's
// event loop keeps only what it shares with the thread: the hint that callback events were
// queued (one message at most every QUEUED_HINT_MS), the attempts' metrics and log lines coming
// back, and start, drain and stop. Domain time needs no message: the simulator clock's offset is
// in memory both threads read. Should the thread fail, delivery goes on on this event loop.

/** The least time between two 'queued' hints: the thread gathers events for longer anyway. */
const QUEUED_HINT_MS = 5;

/**
 * Whether the worker can run on the thread: the switch is on, the database is one a second
 * connection can open (a file or PostgreSQL, not SQLite in memory), time is the system's (plus
 * the simulator's shared offset), and nothing is injected that cannot cross to a thread (a
 * transport or a DNS resolver of a test).
 */
export function deliveryThreadFits(
  deps: CallbackWorkerDeps,
  options: CallbackWorkerOptions,
): boolean {
  const { config, clock } = deps;
  const db = config.database;
  return (
    config.callbackDeliveryThread &&
    options.transport === undefined &&
    deps.resolver === undefined &&
    deps.wallClock === systemWallClock &&
    (clock === systemClock || (clock instanceof OffsetClock && clock.onSystemClock)) &&
    (db.kind === 'postgres' || db.path !== ':memory:')
  );
}

export function createDeliveryThread(
  deps: CallbackWorkerDeps,
  log: Pick<WorkerLog, 'warn'> & Partial<Pick<WorkerLog, 'error'>>,
  options: CallbackWorkerOptions,
  instanceId: string,
  /** The worker on this event loop, should the thread fail. */
  fallback: () => CallbackWorker,
): CallbackWorker {
  const settings: DeliveryThreadSettings = {
    config: { ...deps.config, masterKey: undefined },
    masterKey: new Uint8Array(resolveMasterKey(deps.config)),
    sharedOffset: deps.clock instanceof OffsetClock ? deps.clock.sharedOffset : undefined,
    instanceId,
    ...(deps.store.writeTurns === undefined ? {} : { writeTurns: deps.store.writeTurns.buffer }),
    ...(options.ca === undefined
      ? {}
      : { ca: typeof options.ca === 'string' ? options.ca : new Uint8Array(options.ca) }),
  };
  let thread: Thread | undefined;
  let running = false;
  let lost: CallbackWorker | undefined;
  let stopped: (() => void) | undefined;
  let cancelHint: (() => void) | undefined;
  const drains = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  let nextDrain = 0;

  const post = (message: ToDeliveryThread): void => thread?.postMessage(message);

  // One hint per burst of inserts: after each, the next insert is listened for QUEUED_HINT_MS on.
  const listen = (): void => {
    cancelHint = deps.callbackQueued?.once(() => {
      post({ kind: 'queued' });
      cancelHint = deps.wallClock.setTimer(QUEUED_HINT_MS, () => {
        if (running) listen();
      });
    });
  };

  const failed = (why: string): void => {
    if (thread === undefined) return;
    thread = undefined;
    cancelHint?.();
    for (const waiting of drains.values()) waiting.reject(new Error(`delivery thread ${why}`));
    drains.clear();
    stopped?.();
    if (!running) return;
    (log.error ?? log.warn)({}, `callback delivery thread ${why}; delivering on the event loop`);
    lost = fallback();
    lost.start();
  };

  const open = (): Thread => {
    if (thread !== undefined) return thread;
    const entry = threadEntry(
      import.meta.url,
      'callback-delivery-worker.cjs',
      'delivery-thread-worker',
    );
    const made = new Thread(entry.code, { eval: entry.eval, workerData: settings });
    made.on('message', (message: FromDeliveryThread) => {
      switch (message.kind) {
        case 'attempts':
          for (const [outcome, seconds] of message.attempts) {
            options.metrics?.observeCallbackAttempt(outcome, seconds);
          }
          return;
        case 'warn':
          log.warn(message.details, message.message);
          return;
        case 'drained': {
          const waiting = drains.get(message.id);
          drains.delete(message.id);
          if (message.error === undefined) waiting?.resolve();
          else waiting?.reject(new Error(message.error));
          if (drains.size === 0 && !running) made.unref();
          return;
        }
        case 'stopped':
          if (message.error !== undefined) {
            log.warn({ err: message.error }, 'callback delivery thread stopped with an error');
          }
          stopped?.();
          return;
      }
    });
    made.on('error', (error) => failed(`failed: ${error.message}`));
    made.on('exit', (code) => failed(`exited (${code})`));
    made.unref();
    thread = made;
    return made;
  };

  return {
    name: 'callback-delivery',
    instanceId,
    start() {
      if (running) return;
      running = true;
      open().ref();
      post({ kind: 'start' });
      listen();
    },
    async stop() {
      running = false;
      cancelHint?.();
      if (lost !== undefined) {
        await lost.stop();
        return;
      }
      const current = thread;
      if (current === undefined) return;
      const done = new Promise<void>((resolve) => {
        stopped = resolve;
      });
      current.ref();
      post({ kind: 'stop' });
      await done;
      thread = undefined;
      await current.terminate();
    },
    drain() {
      if (running) throw new Error('drain() is for a worker that has not been started');
      const current = open();
      current.ref();
      const id = nextDrain;
      nextDrain += 1;
      return new Promise<void>((resolve, reject) => {
        drains.set(id, { resolve, reject });
        post({ kind: 'drain', id });
      });
    },
  };
}

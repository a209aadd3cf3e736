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

/** A thread started, with what is waited for from it. */
interface OpenThread {
  readonly thread: Thread;
  readonly drains: Map<number, { resolve: () => void; reject: (error: Error) => void }>;
  /** Resolves once the thread has stopped (its 'stopped' message) or has ended otherwise. */
  readonly ended: Promise<void>;
  readonly end: () => void;
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
  /** The thread while one is open; a thread being stopped is no longer here. */
  let current: OpenThread | undefined;
  let running = false;
  /** The worker on this event loop once the thread has failed while running: delivery stays there. */
  let lost: CallbackWorker | undefined;
  let cancelHint: (() => void) | undefined;
  let nextDrain = 0;
  /** Threads told to stop, until they have ended. */
  let closing: Promise<void> = Promise.resolve();

  const post = (message: ToDeliveryThread): void => current?.thread.postMessage(message);

  // One hint per burst of inserts: after each, the next insert is listened for QUEUED_HINT_MS on.
  const listen = (): void => {
    cancelHint = deps.callbackQueued?.once(() => {
      post({ kind: 'queued' });
      cancelHint = deps.wallClock.setTimer(QUEUED_HINT_MS, () => {
        if (running) listen();
      });
    });
  };

  // The thread died, or cannot reach the database: its drains fail and, if the worker is running,
  // the worker on this event loop takes over. A thread being stopped only ends.
  const failed = (opened: OpenThread, why: string): void => {
    opened.end();
    for (const waiting of opened.drains.values())
      waiting.reject(new Error(`delivery thread ${why}`));
    opened.drains.clear();
    if (current !== opened) return;
    current = undefined;
    cancelHint?.();
    void opened.thread.terminate();
    if (!running) return;
    const line = `callback delivery thread ${why}; delivering on the event loop`;
    // Called on the log, not taken from it: the server's logger needs its object.
    if (log.error === undefined) log.warn({}, line);
    else log.error({}, line);
    lost = fallback();
    lost.start();
  };

  const open = (): OpenThread => {
    if (current !== undefined) return current;
    const entry = threadEntry(
      import.meta.url,
      'callback-delivery-worker.cjs',
      'delivery-thread-worker',
    );
    const thread = new Thread(entry.code, { eval: entry.eval, workerData: settings });
    let end = (): void => undefined;
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    const opened: OpenThread = { thread, drains: new Map(), ended, end: () => end() };
    thread.on('message', (message: FromDeliveryThread) => {
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
          const waiting = opened.drains.get(message.id);
          opened.drains.delete(message.id);
          if (message.error === undefined) waiting?.resolve();
          else waiting?.reject(new Error(message.error));
          // Kept for the next drain (its start and connection are not what a drain costs), but
          // the process may end without it; stop() ends it.
          if (opened.drains.size === 0 && !running && current === opened) thread.unref();
          return;
        }
        case 'failed':
          failed(opened, `failed: ${message.error}`);
          return;
        case 'stopped':
          if (message.error !== undefined) {
            log.warn({ err: message.error }, 'callback delivery thread stopped with an error');
          }
          opened.end();
          return;
      }
    });
    thread.on('error', (error) => failed(opened, `failed: ${error.message}`));
    thread.on('exit', (code) => failed(opened, `exited (${code})`));
    thread.unref();
    current = opened;
    return opened;
  };

  // The open thread is told to stop (attempts under way finish, unsent claims go back, its
  // connection closes) and then ended; stop() waits for every thread told so.
  const release = (): Promise<void> => {
    const opened = current;
    if (opened !== undefined) {
      current = undefined;
      opened.thread.ref();
      opened.thread.postMessage({ kind: 'stop' } satisfies ToDeliveryThread);
      const ending = opened.ended.then(() => opened.thread.terminate());
      closing = Promise.all([closing, ending]).then(() => undefined);
    }
    return closing;
  };

  return {
    name: 'callback-delivery',
    instanceId,
    start() {
      if (running) return;
      running = true;
      if (lost !== undefined) {
        lost.start();
        return;
      }
      open().thread.ref();
      post({ kind: 'start' });
      listen();
    },
    async stop() {
      running = false;
      cancelHint?.();
      if (lost !== undefined) await lost.stop();
      await release();
    },
    drain() {
      if (running) throw new Error('drain() is for a worker that has not been started');
      if (lost !== undefined) return lost.drain();
      const opened = open();
      opened.thread.ref();
      const id = nextDrain;
      nextDrain += 1;
      return new Promise<void>((resolve, reject) => {
        opened.drains.set(id, { resolve, reject });
        post({ kind: 'drain', id });
      });
    },
  };
}

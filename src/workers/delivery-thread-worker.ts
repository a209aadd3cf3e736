// The callback delivery thread (delivery-thread.ts starts it): the whole delivery worker of
// callback-delivery.ts (claim, send, record) on a thread of its own, with a database connection of
// its own (a second SQLite connection to the same file, or a small PostgreSQL pool), so its
// transactions and its JavaScript run beside the event loop that serves requests instead of on
// it. The leases are in the rows, so it is one more claimer like another instance's worker. What
// it shares with the service's thread: domain time (the simulator's clock offset, in shared
// memory), the hint that events were queued, the attempts' metrics and its log lines (messages).
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '../clock.js';
import { OffsetClock, systemClock, systemWallClock } from '../clock.js';
import type { Config } from '../config.js';
import type { CallbackOutcome } from '../metrics/metrics.js';
import { cryptoRandom } from '../random.js';
import { checkDeliveryStore } from '../domain/callbacks/delivery-queue.js';
import { createKeyCipher } from '../security/api-keys.js';
import { databaseBusy } from '../store/conflicts.js';
import { connectionLog } from '../store/connection-retry.js';
import { openStore } from '../store/database.js';
import type { InsertSignal } from '../store/insert-signal.js';
import { createCallbackWorker } from './callback-delivery.js';
import type {
  DeliveryThreadSettings,
  FromDeliveryThread,
  ToDeliveryThread,
} from './delivery-thread-messages.js';

/** How many connections the thread's PostgreSQL pool holds: a claim and a record at once. */
const POOL_SIZE = 4;

/** What the thread's PostgreSQL connections are called in pg_stat_activity. */
const APPLICATION_NAME = 'esim-callback-delivery';

/** Details as they can be posted: an error crosses as one; anything else not cloneable, as text. */
function postable(details: object): object {
  try {
    structuredClone(details);
    return details;
  } catch {
    return Object.fromEntries(Object.entries(details).map(([k, v]) => [k, String(v)]));
  }
}

function start(settings: DeliveryThreadSettings): void {
  const port = parentPort;
  if (port === null) throw new Error('the callback delivery thread runs as a worker thread');
  const tell = (message: FromDeliveryThread): void => port.postMessage(message);
  // The sender thread is for a worker on the service's loop; here the requests are off it already.
  const config: Config = {
    ...settings.config,
    masterKey: Buffer.from(settings.masterKey),
    callbackSenderThread: false,
    callbackDeliveryThread: false,
  };
  const store = openStore(config.database, {
    poolSize: POOL_SIZE,
    busyWaitMs: config.sqliteBusyWaitMs,
    synchronous: config.sqliteSynchronous,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    groupCommit: false,
    applicationName: APPLICATION_NAME,
    // Its connections stay open as long as the thread, between drains too; stopping closes them.
    idleTimeoutMs: 0,
    ...(settings.writeTurns === undefined ? {} : { askTurnsOf: settings.writeTurns }),
  });
  const clock: Clock =
    settings.sharedOffset === undefined ? systemClock : new OffsetClock(settings.sharedOffset);
  // The service posts 'queued' when it inserts callback events (throttled): the listeners waiting.
  const listeners = new Set<() => void>();
  const queued: InsertSignal = {
    once(listener) {
      const entry = (): void => listener();
      listeners.add(entry);
      return () => {
        listeners.delete(entry);
      };
    },
  };
  // Attempts ending in the same turn of this thread's loop go to the metrics in one message.
  let attempts: [CallbackOutcome, number][] = [];
  const metrics = {
    observeCallbackAttempt(outcome: CallbackOutcome, seconds: number): void {
      if (attempts.length === 0) {
        setImmediate(() => {
          const batch = attempts;
          attempts = [];
          tell({ kind: 'attempts', attempts: batch });
        });
      }
      attempts.push([outcome, seconds]);
    },
  };
  const log = {
    warn: (details: object, message: string) =>
      tell({ kind: 'warn', details: postable(details), message }),
  };
  store.watchConnections?.(connectionLog(log));
  const worker = createCallbackWorker(
    {
      config,
      store,
      clock,
      wallClock: systemWallClock,
      random: cryptoRandom,
      cipher: createKeyCipher(config.masterKey ?? Buffer.alloc(0)),
      callbackQueued: queued,
    },
    log,
    {
      instanceId: settings.instanceId,
      metrics,
      ...(settings.ca === undefined
        ? {}
        : { ca: typeof settings.ca === 'string' ? settings.ca : Buffer.from(settings.ca) }),
    },
  );
  const failure = (error: unknown): string =>
    error instanceof Error ? error.message : String(error);
  let work: Promise<void> = Promise.resolve();
  port.on('message', (message: ToDeliveryThread) => {
    switch (message.kind) {
      case 'queued': {
        const called = [...listeners];
        listeners.clear();
        for (const listener of called) listener();
        return;
      }
      case 'start':
        // A thread whose connection cannot read the service's tables would only fail each turn:
        // it closes its connection and says so, and the service delivers on its own event loop
        // instead (delivery-thread.ts). A database busy for now (no connection to be had after the
        // pool's tries, SQLite held) is not that: the worker starts, and its turns try again.
        work = work
          .then(() => checkDeliveryStore({ store }))
          .then(
            () => worker.start(),
            async (error: unknown) => {
              if (databaseBusy(error)) {
                worker.start();
                return;
              }
              await store.close().catch(() => undefined);
              tell({ kind: 'failed', error: failure(error) });
            },
          );
        return;
      case 'drain':
        work = work.then(
          () =>
            worker.drain().then(
              () => tell({ kind: 'drained', id: message.id }),
              (error: unknown) => tell({ kind: 'drained', id: message.id, error: failure(error) }),
            ),
          (error: unknown) => tell({ kind: 'drained', id: message.id, error: failure(error) }),
        );
        return;
      case 'stop':
        // The connection closes even when the worker's start or stop failed.
        work = work
          .then(() => worker.stop())
          .finally(() => store.close())
          .then(
            () => tell({ kind: 'stopped' }),
            (error: unknown) => tell({ kind: 'stopped', error: failure(error) }),
          )
          .finally(() => port.close());
        return;
    }
  });
}

start(workerData as DeliveryThreadSettings);

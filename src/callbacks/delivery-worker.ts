import type { Clock } from '../clock.js';
import { addSeconds, iso, systemClock } from '../clock.js';
import type { AppDeps } from '../deps.js';
import type { CallbackOutcome, Metrics } from '../metrics/metrics.js';
import type { Worker } from '../workers.js';
import { guardFor } from './address-guard.js';
import type { CallbackEventRow, Outcome } from './callback-repository.js';
import {
  claimDueEvents,
  findTargets,
  reclaimExpired,
  recordOutcomes,
  releaseEvents,
} from './callback-repository.js';
import type { Target } from './delivery.js';
import { afterAttempt, buildRequest, isAcknowledged, undeliverable } from './delivery.js';
import type { CallbackTransport, SendOutcome } from './http-sender.js';
import { createHttpSender } from './http-sender.js';

// The delivery worker: claims due events in batches (a lease in the row, so a crashed instance's
// claims are taken over when the lease lapses), sends them with bounded concurrency over
// keep-alive connections, and writes the outcomes in batches. State lives in the rows; the timer
// only wakes the loop when it has gone idle.
//
// Two clocks: when an event is due (next_attempt_at) is domain time, from deps.clock, which the
// simulator and tests advance to bring retries forward. A lease (locked_until) bounds real work —
// a send and its timeouts — so it runs on real time (the lease clock, the system clock unless a
// test injects one): advancing the simulated clock, on this instance or another, never makes a
// lease under way look lapsed, so two instances cannot send the same event at once.

const attemptOutcome = (sent: SendOutcome): CallbackOutcome =>
  isAcknowledged(sent.statusCode) ? 'delivered' : sent.statusCode === null ? 'error' : 'rejected';

/** How long an outcome may wait for others to share its transaction. */
const FLUSH_DELAY_MS = 5;

export interface WorkerLog {
  warn(details: object, message: string): void;
}

export type CallbackWorkerDeps = Pick<
  AppDeps,
  'config' | 'store' | 'clock' | 'random' | 'cipher' | 'resolver'
>;

export interface CallbackWorkerOptions {
  /** Replaces the HTTP sender (the default is built from config, with the guard in production). */
  readonly transport?: CallbackTransport;
  /** Extra trusted CA certificates for https receivers (PEM). */
  readonly ca?: string | Buffer;
  readonly instanceId?: string;
  /** The clock of leases; the system clock unless a test needs to move it. */
  readonly leaseClock?: Clock;
  /** Counts and times each attempt (the Prometheus metrics). */
  readonly metrics?: Pick<Metrics, 'observeCallbackAttempt'>;
}

export interface CallbackWorker extends Worker {
  readonly instanceId: string;
  /** Runs delivery turns until nothing is due (tests and the benchmark). */
  drain(): Promise<void>;
}

interface Leased {
  readonly event: CallbackEventRow;
  readonly target: Target | undefined;
  readonly leaseUntil: Date;
}

export function createCallbackWorker(
  deps: CallbackWorkerDeps,
  log: WorkerLog,
  options: CallbackWorkerOptions = {},
): CallbackWorker {
  const { config, store, clock, random, cipher } = deps;
  const instanceId = options.instanceId ?? random.uuid().slice(0, 8);
  const leaseClock = options.leaseClock ?? systemClock;
  const guard = guardFor(config);
  const transport =
    options.transport ??
    createHttpSender({
      connectTimeoutMs: config.callbackConnectTimeoutMs,
      timeoutMs: config.callbackTimeoutMs,
      guard,
      ...(deps.resolver === undefined ? {} : { resolver: deps.resolver }),
      requireHttps: config.mode === 'production',
      maxSockets: config.callbackConcurrency,
      ca: options.ca,
    });
  const concurrency = config.callbackConcurrency;
  const batchSize = concurrency * 2;
  // A lease covers the wait in the local queue and the send itself, each bounded by the timeout.
  const leaseSeconds =
    (2 * config.callbackTimeoutMs + config.callbackConnectTimeoutMs + 1000) / 1000;

  const queue: Leased[] = [];
  const inFlight = new Set<Promise<void>>();
  let outcomes: Outcome[] = [];
  let stopped = true;
  let stopping = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;

  async function claim(limit: number): Promise<number> {
    const now = clock.now();
    const leaseUntil = addSeconds(leaseClock.now(), leaseSeconds);
    const rows = await claimDueEvents(store.db, store.dialect, {
      now: iso(now),
      leaseUntil: iso(leaseUntil),
      worker: instanceId,
      limit,
    });
    if (rows.length === 0) return 0;
    const orgIds = [...new Set(rows.map((r) => r.organisation_id))];
    const targets = new Map<string, Target>();
    for (const org of await findTargets(store.db, orgIds)) {
      if (org.callback_url === '') continue;
      targets.set(org.id, {
        url: org.callback_url,
        version: org.callback_version,
        apiKey: cipher.decrypt(org.api_key_enc),
      });
    }
    for (const event of rows) {
      queue.push({ event, target: targets.get(event.organisation_id), leaseUntil });
    }
    return rows.length;
  }

  function start(item: Leased): void {
    const turn = {
      event: item.event,
      worker: instanceId,
      now: clock.now(),
      schedule: config.callbackRetryScheduleSeconds,
      random,
    };
    if (item.target === undefined) {
      outcomes.push(undeliverable(turn));
      return;
    }
    // Too close to the end of the lease: another instance may take it over mid-send. Leave it
    // to lapse and be claimed afresh rather than risk two concurrent deliveries.
    if (leaseClock.now().getTime() + config.callbackTimeoutMs >= item.leaseUntil.getTime()) return;
    const target = item.target;
    const attemptedAt = turn.now;
    const request = buildRequest(item.event, target, item.event.attempts + 1, instanceId);
    const task = transport
      .send(request)
      .then((sent) => {
        options.metrics?.observeCallbackAttempt(attemptOutcome(sent), sent.latencyMs / 1000);
        outcomes.push(afterAttempt({ ...turn, now: clock.now() }, target.url, attemptedAt, sent));
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }

  // Outcomes are written in batches by one writer at a time: while a batch is being written,
  // the next one accumulates, so a busy worker writes a few large transactions, not many small.
  let writing: Promise<void> | undefined;

  async function write(): Promise<void> {
    while (outcomes.length > 0) {
      const batch = outcomes;
      outcomes = [];
      try {
        await recordOutcomes(store.db, batch);
      } catch (error) {
        // The rows stay leased; when the lease lapses they are delivered again (at least once).
        log.warn({ err: error, events: batch.length }, 'could not record callback outcomes');
      }
    }
  }

  let flushTimer: NodeJS.Timeout | undefined;

  function flushNow(): void {
    if (flushTimer !== undefined) clearTimeout(flushTimer);
    flushTimer = undefined;
    writing ??= write().finally(() => {
      writing = undefined;
    });
  }

  /** Writes once a batch has gathered, or a few milliseconds after the first outcome. */
  function flushSoon(): void {
    if (outcomes.length >= concurrency / 2) flushNow();
    else flushTimer ??= setTimeout(flushNow, FLUSH_DELAY_MS);
  }

  /** Waits until every outcome so far is written. */
  async function flush(): Promise<void> {
    for (;;) {
      if (writing !== undefined) await writing;
      else if (outcomes.length > 0) flushNow();
      else return;
    }
  }

  /**
   * Runs turns until nothing is due (or the worker is stopping); true when anything was claimed.
   * The local queue is topped up in batches while sends are under way, so a busy receiver never
   * waits on the store and the store sees few, large claims.
   */
  async function pump(): Promise<boolean> {
    const lapsed = await reclaimExpired(store.db, {
      leaseNow: iso(leaseClock.now()),
      at: iso(clock.now()),
    });
    let worked = lapsed > 0;
    for (;;) {
      if (!stopping && queue.length <= concurrency / 2) {
        const room = batchSize - queue.length - inFlight.size;
        if (room > 0 && (await claim(room)) > 0) worked = true;
      }
      while (inFlight.size < concurrency && queue.length > 0) {
        const next = queue.shift();
        if (next !== undefined) start(next);
      }
      if (inFlight.size === 0) {
        await flush();
        if (queue.length === 0 || stopping) return worked;
        continue;
      }
      await Promise.race(inFlight);
      flushSoon();
      if (stopping) return worked;
    }
  }

  function wake(delayMs: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      loop = pump()
        .catch((error: unknown) => {
          log.warn({ err: error }, 'callback delivery turn failed');
          return false;
        })
        .then((worked) => {
          loop = undefined;
          wake(worked ? 0 : config.callbackWorkerIntervalMs);
        });
    }, delayMs);
  }

  return {
    name: 'callback-delivery',
    instanceId,
    start() {
      if (!stopped) return;
      stopped = false;
      stopping = false;
      wake(0);
    },
    async stop() {
      stopped = true;
      stopping = true;
      if (timer !== undefined) clearTimeout(timer);
      await loop;
      // Unsent claims go back at once; sends under way finish (each bounded by the timeout).
      const unsent = queue.splice(0).map((item) => item.event.id);
      await Promise.allSettled([...inFlight]);
      await flush();
      try {
        await releaseEvents(store.db, unsent, instanceId, iso(clock.now()));
      } catch (error) {
        log.warn({ err: error }, 'could not release unsent callbacks; their lease will lapse');
      }
      transport.close();
    },
    async drain() {
      if (!stopped) throw new Error('drain() is for a worker that has not been started');
      while (await pump()) {
        /* keep going while turns do work */
      }
    },
  };
}

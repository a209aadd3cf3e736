import type { CallbackTransport } from '../callbacks/http-sender.js';
import type { AppDeps } from '../deps.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Worker } from './worker.js';

// What the callback delivery worker needs and offers, wherever it runs: on the service's event
// loop (callback-delivery.ts) or on a thread of its own (delivery-thread.ts).

export type CallbackWorkerDeps = Pick<
  AppDeps,
  'config' | 'store' | 'clock' | 'wallClock' | 'random' | 'cipher' | 'resolver' | 'callbackQueued'
>;

export interface CallbackWorkerOptions {
  /** Replaces the HTTP sender (the default is built from config, with the guard in production). */
  readonly transport?: CallbackTransport;
  /** Extra trusted CA certificates for https receivers (PEM). */
  readonly ca?: string | Buffer;
  readonly instanceId?: string;
  /** Counts and times each attempt (the Prometheus metrics). */
  readonly metrics?: Pick<Metrics, 'observeCallbackAttempt'>;
}

export interface CallbackWorker extends Worker {
  readonly instanceId: string;
  /** Runs delivery turns until nothing is due (tests and the benchmark). */
  drain(): Promise<void>;
}

import type { Config } from '../config.js';
import type { CallbackOutcome } from '../metrics/metrics.js';

// What the service's thread and the callback delivery thread (delivery-thread.ts,
// delivery-thread-worker.ts) hand each other: the thread's settings and the messages both ways.

export interface DeliveryThreadSettings {
  /** The service's settings, its master key apart (a Buffer does not cross as one). */
  readonly config: Config & { readonly masterKey: undefined };
  readonly masterKey: Uint8Array;
  /** The simulator clock's offset (OffsetClock.sharedOffset); absent, the system clock. */
  readonly sharedOffset: SharedArrayBuffer | undefined;
  readonly instanceId: string;
  readonly ca?: string | Uint8Array;
  /** SQLite: the service's turns at the write lock (store/write-turns.ts), which the thread asks for. */
  readonly writeTurns?: SharedArrayBuffer;
}

/** What the service's thread asks. */
export type ToDeliveryThread =
  | { readonly kind: 'start' }
  | { readonly kind: 'queued' }
  | { readonly kind: 'drain'; readonly id: number }
  | { readonly kind: 'stop' };

/** What the thread tells. */
export type FromDeliveryThread =
  | { readonly kind: 'attempts'; readonly attempts: readonly [CallbackOutcome, number][] }
  | { readonly kind: 'warn'; readonly details: object; readonly message: string }
  | { readonly kind: 'drained'; readonly id: number; readonly error?: string }
  /** Started, it cannot read the service's tables on its own connection: it is of no use. */
  | { readonly kind: 'failed'; readonly error: string }
  | { readonly kind: 'stopped'; readonly error?: string };

import type { Resolver } from './callbacks/address-guard.js';
import type { Clock, WallClock } from './clock.js';
import type { Config } from './config.js';
import type { NetworkEventSink } from './domain/esims/lifecycle/network-events.js';
import type { Mailer } from './domain/access/mail.js';
import type { CallbackUrlCheck } from './domain/organisations/organisation-changes.js';
import type { Metrics } from './metrics/metrics.js';
import type { NetworkAdapter } from './domain/network/network-adapter.js';
import type { Simulator } from './domain/simulator/simulator.js';
import type { PaymentGateway } from './domain/money/payment-gateway.js';
import type { RandomSource } from './random.js';
import type { RequestJournal } from './domain/simulator/request-journal.js';
import type { PasswordGate } from './domain/access/password-gate.js';
import type { RateLimits } from './rate-limits/limiter.js';
import type { KeyCipher } from './security/api-keys.js';
import type { ApiKeyCache } from './security/key-cache.js';
import type { Store } from './store/database.js';
import type { InsertSignal } from './store/insert-signal.js';
import type { WriteCounter } from './store/write-watch.js';

/**
 * Everything the HTTP app and the workers need, built once in src/main.ts (or by the test
 * harness) and passed in. Each area adds its own adapter here, behind an interface.
 */
export interface AppDeps {
  readonly config: Config;
  readonly store: Store;
  /**
   * Moves whenever a statement that may write runs through `store` (store/write-watch.ts), so an
   * answer cache can tell that nothing changed since it read; absent, nothing may be cached on it.
   */
  readonly writes?: WriteCounter;
  /**
   * Fires when this process inserts callback events (store/insert-signal.ts), so the delivery
   * worker starts at once instead of at its next poll; absent, it only polls.
   */
  readonly callbackQueued?: InsertSignal;
  readonly clock: Clock;
  /**
   * Real time, for leases, timeouts and waits on other systems; the simulator never moves it.
   * The system clock in production; tests inject one they move themselves.
   */
  readonly wallClock: WallClock;
  readonly random: RandomSource;
  readonly cipher: KeyCipher;
  /**
   * The organisations API keys authenticate, in memory; whoever changes an organisation or its
   * keys calls `forget` after the commit (other processes notice within API_KEY_CACHE_MS).
   */
  readonly apiKeys: ApiKeyCache;
  /** Extra checks on a callback URL at save time (the SSRF guard in production mode). */
  readonly checkCallbackUrl?: CallbackUrlCheck;
  /**
   * The DNS resolver of the callback address guard (production mode), at save time and on every
   * delivery connection; the system resolver when unset. Tests inject one to play DNS answers.
   */
  readonly resolver?: Resolver;
  /** Receives what the network did (usage, attach) inside the lifecycle's transaction. */
  readonly networkEvents: NetworkEventSink;
  /** The mobile network: profile installs, attach, data use, SMS, MSISDNs. */
  readonly network: NetworkAdapter;
  /** The /_sim control plane's handle on the clock and network; simulator mode only. */
  readonly simulator: Simulator | undefined;
  /** The simulator's request journal of API calls; simulator mode only. */
  readonly journal?: RequestJournal;
  /** Charges saved cards for balance top-up (the built-in test processor in simulator mode). */
  readonly payments: PaymentGateway;
  /** Request budgets (docs/operations.md, "Rate limits"); undefined when rate limiting is off. */
  readonly rateLimits?: RateLimits;
  /** Prometheus metrics (docs/operations.md, "Metrics and alerts"). */
  readonly metrics?: Metrics;
  /** The portal's mail: SMTP, or the outbox `esim mail list` reads (docs/portal.md). */
  readonly mailer: Mailer;
  /** Bounds the password checks (scrypt) of the portal that run at once; unbounded without it. */
  readonly passwordGate?: PasswordGate;
}

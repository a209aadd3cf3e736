import type { Clock, WallClock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Simulator } from './simulator.js';
import type { NetworkAdapter } from '../network/network-adapter.js';
import type { RandomSource } from '../../random.js';
import type { KeyCipher } from '../../security/api-keys.js';
import type { ApiKeyCache } from '../../security/key-cache.js';
import type { Store } from '../../store/database.js';
import type { Mailer } from '../access/mail.js';
import type { PasswordGate } from '../access/password-gate.js';
import type { NetworkEventSink } from '../esims/lifecycle/network-events.js';
import type { CallbackUrlCheck } from '../organisations/organisation-changes.js';
import type { RequestJournal } from './request-journal.js';

/**
 * What the simulator's fixtures and snapshots use: they place orders, add users and move the
 * network, so they need most of what the service is built with (src/deps.ts passes it whole).
 */
export interface SimulatorDeps {
  readonly config: Config;
  readonly store: Store;
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly random: RandomSource;
  readonly cipher: KeyCipher;
  readonly apiKeys: ApiKeyCache;
  readonly checkCallbackUrl?: CallbackUrlCheck;
  readonly networkEvents: NetworkEventSink;
  readonly network: NetworkAdapter;
  readonly simulator: Simulator | undefined;
  readonly mailer: Mailer;
  readonly passwordGate?: PasswordGate;
  /**
   * The request journal, whose calls kept in memory a snapshot writes first: an export holds
   * every call answered before it, and an import or a reset replaces them too.
   */
  readonly journal?: Pick<RequestJournal, 'flush'>;
}

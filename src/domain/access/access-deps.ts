import type { Clock, WallClock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { RandomSource } from '../../random.js';
import type { KeyCipher } from '../../security/api-keys.js';
import type { Store } from '../../store/database.js';
import type { Mailer } from './mail.js';

/** What the portal's use cases need. Sessions, links and the sign-in throttle run on wall time. */
export interface PortalDeps {
  readonly store: Store;
  readonly clock: Clock;
  readonly wallClock: WallClock;
  readonly random: RandomSource;
  readonly cipher: KeyCipher;
  readonly config: Config;
  readonly mailer: Mailer;
}

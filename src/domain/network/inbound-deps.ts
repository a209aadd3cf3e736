import type { Clock } from '../../clock.js';
import type { Db, DialectName } from '../../store/database.js';
import type { NetworkEventSink } from '../esims/lifecycle/network-events.js';

/**
 * What the inbound network use cases need. `networkEvents` is read when an event is recorded,
 * so a caller may pass an object whose sink is swapped later (tests observe events this way).
 */
export interface InboundNetworkDeps {
  readonly store: { readonly db: Db; readonly dialect: DialectName };
  readonly clock: Clock;
  readonly networkEvents: NetworkEventSink;
}

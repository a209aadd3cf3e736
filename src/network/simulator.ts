import type { Clock } from '../clock.js';
import { OffsetClock } from '../clock.js';
import type { Config } from '../config.js';
import type { NetworkEventSink } from '../domain/esims/lifecycle/network-events.js';
import type { Db, DialectName } from '../store/database.js';
import { SIM_KEYS, readSimState } from '../store/repositories/sim-repository.js';
import type { NetworkAdapter } from '../domain/network/network-adapter.js';
import type { SimulatedEvents, Simulator } from '../domain/simulator/simulator.js';
import { createSimulatedEvents } from './simulated-events.js';
import { createSimulatedNetwork } from './simulated-network.js';

/** The simulator clock, with the offset it had before the last restart. */
export async function restoreSimulatorClock(db: Db): Promise<OffsetClock> {
  const raw = await readSimState(db, SIM_KEYS.clockOffsetMs);
  const offset = raw === undefined ? 0 : Number(raw);
  return new OffsetClock(Number.isFinite(offset) ? offset : 0);
}

/**
 * The outbound network adapter (the simulated network is the default in both modes: production
 * plugs a real one in here) and, in simulator mode, the control object for /_sim with the event
 * source that feeds the domain's inbound use cases. `events` is read at the time of each event,
 * so the sink can be wired after this.
 */
export function networkServices(
  config: Config,
  store: { readonly db: Db; readonly dialect: DialectName },
  clock: Clock,
  events: () => NetworkEventSink,
): { network: NetworkAdapter; simulator: Simulator | undefined } {
  const network = createSimulatedNetwork({ config, store, clock });
  const networkEvents: NetworkEventSink = {
    record: (trx, event, at) => events().record(trx, event, at),
  };
  const eventsOn = (on: { readonly db: Db; readonly dialect: DialectName }): SimulatedEvents =>
    createSimulatedEvents({ store: on, clock, networkEvents }, network.random, network);
  const simulator =
    config.mode === 'simulator' && clock instanceof OffsetClock
      ? { clock, network, events: eventsOn(store), eventsOn, faultsMayExist: true }
      : undefined;
  return { network, simulator };
}

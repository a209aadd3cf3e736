import type { OffsetClock } from '../../clock.js';
import type { RandomSource } from '../../random.js';
import type { Db, DialectName } from '../../store/database.js';
import type { NetworkAdapter } from '../network/network-adapter.js';
import type { AttachResult } from '../network/attach.js';
import type { UsageResult } from '../network/data-use.js';
import type { ProfileResult, ProfileStatus } from '../network/profile.js';

// The ports of the simulator (simulator mode only): what the /_sim control plane, the portal's
// simulator console and the fixtures drive. src/network implements them: the simulated network
// (simulated-network.ts), its event source (simulated-events.ts), both put together by
// networkServices (simulator.ts).

/** The outbound network adapter of the simulator, with the controls of a simulated network. */
export interface SimulatedNetwork extends NetworkAdapter {
  /** Restarts the network's random sequence from the configured seed (simulator reset). */
  reseed(): void;
  /** The network's own random source: operator choice, fault probabilities. */
  readonly random: RandomSource;
}

/** Where to attach: a country (the network picks one of its operators) or an exact operator. */
export type AttachTarget =
  { readonly country: string } | { readonly mcc: string; readonly mnc: string };

/** What a device and a mobile network would report, handed to the inbound use cases. */
export interface SimulatedEvents {
  /** The device downloaded/installed (or deleted) the profile. */
  installProfile(iccid: string, status: ProfileStatus): Promise<ProfileResult>;
  /** The eSIM registered on a network of a country, or on an exact operator. */
  attach(iccid: string, target: AttachTarget): Promise<AttachResult>;
  /** The network reports data used by the eSIM. */
  reportUsage(iccid: string, bytes: number): Promise<UsageResult>;
}

/** What the /_sim control plane drives. Present in simulator mode only. */
export interface Simulator {
  readonly clock: OffsetClock;
  readonly network: SimulatedNetwork;
  /** The event source /_sim drives: installs, attachments and data use, as a network reports them. */
  readonly events: SimulatedEvents;
  /** The same event source writing through another store (a fixture loads in one transaction). */
  eventsOn(store: { readonly db: Db; readonly dialect: DialectName }): SimulatedEvents;
  /**
   * False once a lookup found no fault rows, so ordinary requests skip the fault check until the
   * control plane adds one. Faults live in rows; this flag only saves a query (simulator mode is a
   * single process).
   */
  faultsMayExist: boolean;
}

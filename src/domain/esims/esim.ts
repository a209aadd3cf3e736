// An eSIM as the domain speaks of it; the store keeps it (esim-repository.ts) and returns it in
// this shape, so nothing above the store reads a column.

/** What the device last reported of the profile (Deactivated: the eSIM was deleted). */
export type ProfileStatus = 'Released' | 'Downloaded' | 'Installed' | 'Unavailable' | 'Deactivated';

/** Whether the eSIM may be used: active, suspended (no data, no SMS) or deactivated (deleted). */
export type EsimState = 'active' | 'suspended' | 'deactivated';

/** An eSIM of an organisation. */
export interface Esim {
  /** 19 digits starting 89. */
  readonly iccid: string;
  readonly organisationId: string;
  readonly matchingId: string;
  /** The SM-DP+ address the profile downloads from. */
  readonly smdpAddress: string;
  readonly profileStatus: ProfileStatus;
  readonly pin: string;
  readonly puk: string;
  /** Its phone number (E.164 digits); null until the network gives it one. */
  readonly msisdn: string | null;
  /** When the profile was first installed; null when never. */
  readonly firstInstalledAt: string | null;
  /** The order or apply reference that issued it. */
  readonly orderReference: string | null;
  readonly createdAt: string;
  /** The organisation's own reference (PUT /esims); null when unset. */
  readonly customerRef: string | null;
  readonly state: EsimState;
  /** When `state` last changed; null when never. */
  readonly stateChangedAt: string | null;
}

/** What an eSIM's history and assignments say about it. */
export interface EsimActivity {
  /** Name of the newest history entry, e.g. "Bundle Applied"; empty when none. */
  readonly lastAction: string;
  /** When that entry was written; empty when none. */
  readonly actionDate: string;
  /** When a bundle was first assigned to the eSIM; empty when never. */
  readonly assignedDate: string;
}

/**
 * One eSIM with its activity: what GET /esims/{iccid} and the portal's eSIM page read
 * (readEsim, esim-details.ts), each rendering it in its own way.
 */
export interface EsimDetail extends Esim, EsimActivity {}

// Where an eSIM is attached, as the domain speaks of it; the store keeps one per eSIM
// (network-repository.ts), replaced on every attach.

export interface EsimLocation {
  readonly iccid: string;
  readonly mcc: string;
  readonly mnc: string;
  /** The network's name as it reported itself. */
  readonly networkName: string;
  /** ISO2 country of the network. */
  readonly country: string;
  readonly attached: boolean;
  /** When the eSIM last registered or used data there. */
  readonly lastSeen: string;
  /** When the eSIM first used data; null when never. */
  readonly firstUsedAt: string | null;
}

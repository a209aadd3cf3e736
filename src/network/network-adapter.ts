// The mobile network as the service sees it. The simulated network (simulated-network.ts) is the
// default implementation; an operator's real integration implements the same interface.

export const PROFILE_STATUSES = ['Released', 'Downloaded', 'Installed', 'Unavailable'] as const;
export type ProfileStatus = (typeof PROFILE_STATUSES)[number];

/** Where to attach: a country (the network picks one of its operators) or an exact operator. */
export type AttachTarget =
  { readonly country: string } | { readonly mcc: string; readonly mnc: string };

export interface ProfileResult {
  readonly iccid: string;
  readonly profileStatus: ProfileStatus;
  readonly firstInstalledDateTime: string;
}

export interface AttachResult {
  readonly iccid: string;
  readonly mobileNetworkCode: string;
  readonly mcc: string;
  readonly mnc: string;
  readonly networkName: string;
  readonly country: string;
  readonly lastSeen: string;
}

export interface UsageResult {
  readonly iccid: string;
  readonly requestedBytes: number;
  /** Bytes taken from a bundle; the rest was not served. */
  readonly consumedBytes: number;
  readonly unservedBytes: number;
  /** Why some bytes were not served, when any were not. */
  readonly reason: string;
  /** The bundle assignment that served the data, after the report. */
  readonly assignment:
    | {
        readonly id: string;
        readonly name: string;
        readonly state: string;
        readonly remainingBytes: number;
        readonly usedBytes: number;
      }
    | undefined;
  /** State changes this report caused, in order, e.g. "Queued -> Active". */
  readonly transitions: readonly string[];
}

export interface SmsDelivery {
  readonly id: string;
  readonly iccid: string;
  readonly msisdn: string;
  readonly from: string;
  readonly message: string;
  readonly createdAt: string;
}

export interface NetworkAdapter {
  /** The device downloaded/installed (or deleted) the profile. */
  installProfile(iccid: string, status: ProfileStatus): Promise<ProfileResult>;
  /** The eSIM registered on a network. */
  attach(iccid: string, target: AttachTarget): Promise<AttachResult>;
  /** The network reports data used by the eSIM; bytes come off its bundles. */
  reportUsage(iccid: string, bytes: number): Promise<UsageResult>;
  /** Delivers an SMS to the eSIM's MSISDN. */
  deliverSms(input: {
    iccid: string;
    organisationId: string;
    msisdn: string;
    from: string;
    message: string;
  }): Promise<SmsDelivery>;
  /** Gives the eSIM a phone number (with the country's calling code); returns it. */
  assignMsisdn(iccid: string, country: string | undefined): Promise<string>;
}

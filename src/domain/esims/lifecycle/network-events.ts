import type { Executor } from '../../../store/database.js';

// The seam between the bundle lifecycle (which learns what the network did) and usage callbacks
// (which decide what to tell the organisation). The lifecycle calls the sink inside the same
// transaction as the change it reports, so an event is never lost or recorded twice.

export interface AssignmentSnapshot {
  readonly id: string;
  readonly reference: string;
  readonly bundleName: string;
  readonly description: string;
  readonly state: string;
  readonly initialBytes: number; // -1 when unlimited
  readonly remainingBytes: number; // -1 when unlimited
  readonly usedBytes: number;
  readonly unlimited: boolean;
  readonly startTime: string | null;
  readonly endTime: string | null;
}

export type NetworkEvent =
  | {
      readonly type: 'usage';
      readonly organisationId: string;
      readonly iccid: string;
      /** The assignment after the usage was applied. */
      readonly assignment: AssignmentSnapshot;
      /** Bytes used on this assignment before this report. */
      readonly usedBefore: number;
      /** True when this is the first data use ever on the eSIM. */
      readonly firstUse: boolean;
    }
  | {
      readonly type: 'attach';
      readonly organisationId: string;
      readonly iccid: string;
      readonly country: string;
      readonly previousCountry: string | null;
      readonly firstAttachment: boolean;
      /** The bundle in use (Active) or next in line (Queued), if any. */
      readonly assignment: AssignmentSnapshot | undefined;
    };

export interface NetworkEventSink {
  record(trx: Executor, event: NetworkEvent, at: Date): Promise<void>;
}

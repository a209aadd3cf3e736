import type { BundleState } from './states.js';

// A bundle on an eSIM, as the domain speaks of it; the store keeps it (assignment-repository.ts)
// and returns it in this shape.

export interface Assignment {
  readonly id: string;
  /** The order or apply reference that created it. */
  readonly reference: string;
  readonly iccid: string;
  readonly organisationId: string;
  readonly bundleName: string;
  /** The inventory batch it was drawn from, for refunds; null when there is none. */
  readonly batchId: number | null;
  readonly state: BundleState;
  /** Data at the start, bytes; -1 when unlimited. */
  readonly initialBytes: number;
  /** Data left, bytes; -1 when unlimited. */
  readonly remainingBytes: number;
  readonly usedBytes: number;
  readonly unlimited: boolean;
  readonly durationDays: number;
  /** Its place among the eSIM's assignments: the next Queued one to start is the lowest. */
  readonly queuePosition: number;
  /** When provisioning finishes (Processing becomes Queued). */
  readonly processingDueAt: string | null;
  /** An assignment that has not started by then expires unused. */
  readonly validUntil: string;
  /** When it became Active; null until then. */
  readonly startTime: string | null;
  /** When it expires (start + duration); null until it starts. */
  readonly endTime: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** What may change of an assignment: its state, usage counters, start and end. */
export type AssignmentChanges = Partial<
  Pick<
    Assignment,
    | 'state'
    | 'remainingBytes'
    | 'usedBytes'
    | 'startTime'
    | 'endTime'
    | 'processingDueAt'
    | 'updatedAt'
  >
>;

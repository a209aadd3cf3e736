import type { Assignment } from './assignment.js';
import type { AssignmentSnapshot } from './network-events.js';

export function snapshotOf(row: Assignment, description: string): AssignmentSnapshot {
  return {
    id: row.id,
    reference: row.reference,
    bundleName: row.bundleName,
    description,
    state: row.state,
    initialBytes: Number(row.initialBytes),
    remainingBytes: Number(row.remainingBytes),
    usedBytes: Number(row.usedBytes),
    unlimited: row.unlimited,
    startTime: row.startTime,
    endTime: row.endTime,
  };
}

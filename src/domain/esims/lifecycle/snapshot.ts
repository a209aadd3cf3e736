import type { AssignmentRow } from '../../../store/schema.js';
import type { AssignmentSnapshot } from './network-events.js';

export function snapshotOf(row: AssignmentRow, description: string): AssignmentSnapshot {
  return {
    id: row.id,
    reference: row.reference,
    bundleName: row.bundle_name,
    description,
    state: row.state,
    initialBytes: Number(row.initial_bytes),
    remainingBytes: Number(row.remaining_bytes),
    usedBytes: Number(row.used_bytes),
    unlimited: Number(row.unlimited) === 1,
    startTime: row.start_time,
    endTime: row.end_time,
  };
}

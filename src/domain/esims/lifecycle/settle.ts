import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import type { AssignmentRow } from '../../../store/schema.js';
import type { BundleState } from './states.js';
import { transition } from './transition.js';

/**
 * The transition time alone makes due for this row, if any: provisioning finished, duration
 * over, or the validity window of an unstarted bundle lapsed.
 */
export function dueTransition(row: AssignmentRow, at: Date): BundleState | undefined {
  const now = iso(at);
  switch (row.state) {
    case 'Processing':
      return row.processing_due_at !== null && row.processing_due_at <= now ? 'Queued' : undefined;
    case 'Queued':
      return row.valid_until <= now ? 'Expired' : undefined;
    case 'Active':
    case 'Depleted':
      return row.end_time !== null && row.end_time <= now ? 'Expired' : undefined;
    default:
      return undefined;
  }
}

/**
 * Applies what time has made due to one row. The scheduler does this for every due row; a usage
 * report does it for the rows it reads, so data is never served from a bundle that has already
 * ended even if the scheduler has not run yet.
 */
export async function settle(trx: Executor, row: AssignmentRow, at: Date): Promise<AssignmentRow> {
  const to = dueTransition(row, at);
  return to === undefined ? row : transition(trx, row, to, { at });
}

import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import type { Assignment } from './assignment.js';
import type { BundleState } from './states.js';
import { transition } from './transition.js';

/**
 * The transition time alone makes due for this row, if any: provisioning finished, duration
 * over, or the validity window of an unstarted bundle lapsed.
 */
export function dueTransition(row: Assignment, at: Date): BundleState | undefined {
  const now = iso(at);
  switch (row.state) {
    case 'Processing':
      return row.processingDueAt !== null && row.processingDueAt <= now ? 'Queued' : undefined;
    case 'Queued':
      return row.validUntil <= now ? 'Expired' : undefined;
    case 'Active':
    case 'Depleted':
      return row.endTime !== null && row.endTime <= now ? 'Expired' : undefined;
    default:
      return undefined;
  }
}

/**
 * Applies what time has made due to one row. The scheduler does this for every due row; a usage
 * report does it for the rows it reads, so data is never served from a bundle that has already
 * ended even if the scheduler has not run yet.
 */
export async function settle(trx: Executor, row: Assignment, at: Date): Promise<Assignment> {
  const to = dueTransition(row, at);
  return to === undefined ? row : transition(trx, row, to, { at });
}

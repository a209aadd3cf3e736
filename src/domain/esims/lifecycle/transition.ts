import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import { updateAssignmentIfState } from '../../../store/repositories/assignment-repository.js';
import { insertHistory } from '../../../store/repositories/history-repository.js';
import type { Assignment, AssignmentChanges } from './assignment.js';
import { badRequest, conflict } from '../../errors/error-codes.js';
import type { BundleState } from './states.js';
import { HISTORY_NAME, canTransition } from './states.js';

/** What a transition may change together with the state (usage counters, start/end). */
export type TransitionChanges = Omit<AssignmentChanges, 'state' | 'updatedAt'>;

export interface TransitionEvent {
  readonly at: Date;
  readonly changes?: TransitionChanges;
}

/** Raised when the row changed under us (another request or scheduler got there first). */
export const STALE_ASSIGNMENT = 'stale_assignment';

/**
 * The one way an assignment changes state. It refuses a move that is not in TRANSITIONS,
 * writes the new state (and any counters that change with it) only if the row is still in the
 * state the caller read, and writes the history entry in the same transaction.
 */
export async function transition(
  trx: Executor,
  assignment: Assignment,
  to: BundleState,
  event: TransitionEvent,
): Promise<Assignment> {
  if (!canTransition(assignment.state, to)) {
    throw badRequest(
      `assignment ${assignment.id} is ${assignment.state} and cannot become ${to}`,
      'illegal_transition',
    );
  }
  if (to === 'Depleted' && assignment.unlimited) {
    throw badRequest(`assignment ${assignment.id} is unlimited and cannot be depleted`);
  }
  const at = iso(event.at);
  const changes = { ...event.changes, state: to, updatedAt: at };
  const updated = await updateAssignmentIfState(trx, assignment, changes);
  if (!updated) {
    throw conflict(`assignment ${assignment.id} changed concurrently; retry`, STALE_ASSIGNMENT);
  }
  await insertHistory(trx, {
    iccid: assignment.iccid,
    name: HISTORY_NAME[to],
    bundle: assignment.bundleName,
    bundleState: to,
    alertType: '',
    at,
  });
  return { ...assignment, ...changes };
}

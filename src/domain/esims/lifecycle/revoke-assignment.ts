import type { Clock } from '../../../clock.js';
import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import { refundToInventory } from '../../../store/repositories/inventory-repository.js';
import type { AssignmentRow } from '../../../store/schema.js';
import { badRequest } from '../../errors/error-codes.js';
import { canTransition } from './states.js';
import { transition } from './transition.js';

export interface RevokePlan {
  readonly assignment: AssignmentRow;
  /** Unused (Processing or Queued): the unit goes back to inventory. Started: no refund. */
  readonly refundToInventory: boolean;
}

/** What revoking would do; 400 when the assignment cannot be revoked (Depleted, Expired, Revoked). */
export function planRevoke(assignment: AssignmentRow): RevokePlan {
  if (!canTransition(assignment.state, 'Revoked')) {
    throw badRequest(
      `assignment ${assignment.id} is ${assignment.state} and cannot be revoked; only Processing, Queued and Active assignments can`,
      'illegal_transition',
    );
  }
  return {
    assignment,
    refundToInventory: assignment.state === 'Processing' || assignment.state === 'Queued',
  };
}

/**
 * Revokes an assignment in the caller's transaction. An unused one is refunded to inventory as a
 * new batch of one unit that lapses when the assignment would have (valid_until): the customer
 * keeps exactly the validity the unit had on the eSIM, whether or not the batch it was drawn from
 * has lapsed in the meantime. The conditional transition makes a second, concurrent revoke fail,
 * so a unit is refunded at most once.
 */
export async function revokeAssignment(
  trx: Executor,
  ctx: { readonly clock: Clock },
  assignment: AssignmentRow,
): Promise<{ assignment: AssignmentRow; refundedToInventory: boolean }> {
  const plan = planRevoke(assignment);
  const now = ctx.clock.now();
  const revoked = await transition(trx, assignment, 'Revoked', { at: now });
  if (plan.refundToInventory) {
    await refundToInventory(trx, {
      organisationId: assignment.organisation_id,
      bundleName: assignment.bundle_name,
      reference: assignment.reference,
      expiry: assignment.valid_until,
      at: iso(now),
      sourceBatchId: assignment.batch_id === null ? null : Number(assignment.batch_id),
    });
  }
  return { assignment: revoked, refundedToInventory: plan.refundToInventory };
}

import type { Clock } from '../../../clock.js';
import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import { refundToInventory } from '../../../store/repositories/inventory-repository.js';
import type { Assignment } from './assignment.js';
import { badRequest } from '../../errors/error-codes.js';
import { canTransition } from './states.js';
import { transition } from './transition.js';

/**
 * Where the value of an unused assignment goes when it is revoked: back to inventory (the
 * default), to the organisation's money (`balance`: the caller journals it, domain/balance-refund.ts)
 * or nowhere (`none`: deleting an eSIM revokes its bundles without refund).
 */
export type RevokeRefund = 'inventory' | 'balance' | 'none';

export interface RevokePlan {
  readonly assignment: Assignment;
  /** Unused (Processing or Queued): the unit goes back to inventory. Started: no refund. */
  readonly refundToInventory: boolean;
  /** The unit's price goes back to the organisation's money (only ever when unused). */
  readonly refundToBalance: boolean;
}

const isUnused = (a: Assignment): boolean =>
  (a.state === 'Processing' || a.state === 'Queued') && Number(a.usedBytes) === 0;

/**
 * What revoking would do; 400 when the assignment cannot be revoked (Depleted, Expired, Revoked),
 * or when a refund to the balance is asked for an assignment that has started.
 */
export function planRevoke(assignment: Assignment, refund: RevokeRefund = 'inventory'): RevokePlan {
  if (!canTransition(assignment.state, 'Revoked')) {
    throw badRequest(
      `assignment ${assignment.id} is ${assignment.state} and cannot be revoked; only Processing, Queued and Active assignments can`,
      'illegal_transition',
    );
  }
  const unused = isUnused(assignment);
  if (refund === 'balance' && !unused) {
    throw badRequest(
      `query parameter refundToBalance: assignment ${assignment.id} is ${assignment.state} and has started, so it cannot be refunded to the balance; only unused (Processing or Queued) assignments can`,
      'refund_not_allowed',
    );
  }
  return {
    assignment,
    refundToInventory: refund === 'inventory' && unused,
    refundToBalance: refund === 'balance',
  };
}

/**
 * Revokes an assignment in the caller's transaction. An unused one is refunded to inventory as a
 * new batch of one unit that lapses when the assignment would have (validUntil): the customer
 * keeps exactly the validity the unit had on the eSIM, whether or not the batch it was drawn from
 * has lapsed in the meantime. With `refund: 'balance'` the caller journals the money in the same
 * transaction; with `none` nothing comes back. The conditional transition makes a second,
 * concurrent revoke fail, so a unit is refunded at most once.
 */
export async function revokeAssignment(
  trx: Executor,
  ctx: { readonly clock: Clock },
  assignment: Assignment,
  refund: RevokeRefund = 'inventory',
): Promise<{ assignment: Assignment; refundedToInventory: boolean }> {
  const plan = planRevoke(assignment, refund);
  const now = ctx.clock.now();
  const revoked = await transition(trx, assignment, 'Revoked', { at: now });
  if (plan.refundToInventory) {
    await refundToInventory(trx, {
      organisationId: assignment.organisationId,
      bundleName: assignment.bundleName,
      reference: assignment.reference,
      expiry: assignment.validUntil,
      at: iso(now),
      sourceBatchId: assignment.batchId === null ? null : Number(assignment.batchId),
    });
  }
  return { assignment: revoked, refundedToInventory: plan.refundToInventory };
}

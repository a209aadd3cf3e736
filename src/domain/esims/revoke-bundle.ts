import type { Executor } from '../../store/database.js';
import {
  findAssignment,
  listAssignmentsOfEsim,
} from '../../store/repositories/assignment-repository.js';
import type { Assignment } from './lifecycle/assignment.js';
import { DomainError, badRequest, notFound } from '../errors/error-codes.js';
import type { AssignmentContext } from './lifecycle/assign.js';
import { planRevoke, revokeAssignment } from './lifecycle/revoke-assignment.js';
import { STALE_ASSIGNMENT } from './lifecycle/transition.js';
import { loadOwnedEsim } from './owned-esim.js';
import type { IdempotencyDeps } from '../runner/idempotency.js';
import { runWrite } from '../runner/use-case-runner.js';
import { planBalanceRefund, refundAssignmentToBalance } from '../money/balance-refund.js';
import { refuseDeactivated } from './esim-state.js';
import type { RevokeRefund } from './lifecycle/revoke-assignment.js';

// Revoking an assignment: by id (DELETE /esims/{iccid}/bundles/{name}/assignments/{id}) or the
// oldest unused one of a bundle (DELETE /esims/{iccid}/bundles/{name}). `type: 'validate'`
// reports what a revoke would do and changes nothing; `transaction` revokes, in a transaction
// the use-case runner opens (`revokeFound`). An unused assignment's unit goes back to inventory,
// or, with `refundToBalance`, its price goes back to the organisation's money
// (domain/balance-refund.ts), journaled in the same transaction.

export type RevokeDeps = IdempotencyDeps & AssignmentContext;

export interface RevokeOutcome {
  readonly status: 'validated' | 'revoked';
  readonly assignmentId: string;
  readonly bundle: string;
  readonly previousState: string;
  readonly bundleState: string;
  readonly refundToInventory: boolean;
  readonly refundToBalance: boolean;
  /** What went (or would go) back to the organisation's money, minor units; 0 without refundToBalance. */
  readonly refundedAmount: number;
}

export interface RevokeTarget {
  readonly organisationId: string;
  readonly iccid: string;
  readonly name: string;
  readonly type: 'validate' | 'transaction';
  /** Refund an unused assignment's price to the organisation's money instead of inventory. */
  readonly refundToBalance?: boolean;
}

export interface FoundRevoke {
  readonly found: Assignment;
  readonly refundToBalance: boolean;
}

/** The use case: revokes one assignment already found, in the runner's transaction. */
export async function revokeFound(
  tx: Executor,
  deps: RevokeDeps,
  input: FoundRevoke,
): Promise<RevokeOutcome> {
  const { found } = input;
  const refund: RevokeRefund = input.refundToBalance ? 'balance' : 'inventory';
  const done = await revokeAssignment(tx, deps, found, refund);
  const money = input.refundToBalance
    ? await refundAssignmentToBalance(tx, deps, found)
    : undefined;
  return {
    status: 'revoked',
    assignmentId: found.id,
    bundle: found.bundleName,
    previousState: found.state,
    bundleState: done.assignment.state,
    refundToInventory: done.refundedToInventory,
    refundToBalance: money !== undefined,
    refundedAmount: money === undefined ? 0 : money.toBalance + money.toTestCredit,
  };
}

async function revokeOne(
  deps: RevokeDeps,
  found: Assignment,
  target: RevokeTarget,
): Promise<RevokeOutcome> {
  const refundToBalance = target.refundToBalance === true;
  if (target.type === 'transaction') return runWrite(deps, revokeFound, { found, refundToBalance });
  const plan = planRevoke(found, refundToBalance ? 'balance' : 'inventory');
  const money = refundToBalance ? await planBalanceRefund(deps.store.db, deps, found) : undefined;
  return {
    status: 'validated',
    assignmentId: found.id,
    bundle: found.bundleName,
    previousState: found.state,
    bundleState: found.state,
    refundToInventory: plan.refundToInventory,
    refundToBalance: plan.refundToBalance,
    refundedAmount: money === undefined ? 0 : money.toBalance + money.toTestCredit,
  };
}

/** The assignment `assignmentId` of bundle `name` on the caller's eSIM, or 404. */
async function findNamed(
  deps: RevokeDeps,
  organisationId: string,
  iccid: string,
  name: string,
  assignmentId: string,
): Promise<Assignment> {
  const found = await findAssignment(deps.store.db, organisationId, iccid, assignmentId);
  if (found === undefined || found.bundleName !== name) {
    throw notFound(`assignment ${assignmentId} of bundle ${name} not found on eSIM ${iccid}`);
  }
  return found;
}

/** Revokes (or validates revoking) one assignment by id. */
export async function revokeById(
  deps: RevokeDeps,
  target: RevokeTarget & { readonly assignmentId: string },
): Promise<RevokeOutcome> {
  const esim = await loadOwnedEsim(deps.store.db, target.organisationId, target.iccid);
  refuseDeactivated(esim, 'its bundles were revoked when it was deleted');
  const found = await findNamed(
    deps,
    target.organisationId,
    esim.iccid,
    target.name,
    target.assignmentId,
  );
  return revokeOne(deps, found, target);
}

const UNUSED = new Set(['Processing', 'Queued']);
const MAX_ATTEMPTS = 8;

/**
 * Revokes (or validates revoking) the oldest unused (Processing or Queued) assignment of a bundle,
 * or, with `offerId`, that assignment of the bundle (the live service's name for an assignment id).
 */
export async function revokeByName(
  deps: RevokeDeps,
  target: RevokeTarget & { readonly offerId?: string | undefined },
): Promise<RevokeOutcome> {
  const esim = await loadOwnedEsim(deps.store.db, target.organisationId, target.iccid);
  refuseDeactivated(esim, 'its bundles were revoked when it was deleted');
  const { name } = target;
  if (target.offerId !== undefined && target.offerId !== '') {
    const found = await findNamed(deps, target.organisationId, esim.iccid, name, target.offerId);
    return revokeOne(deps, found, target);
  }
  // Two revokes at once may pick the same assignment; the loser's conditional state change
  // fails as stale, and it moves on to the next unused one.
  for (let attempt = 1; ; attempt += 1) {
    const rows = await listAssignmentsOfEsim(deps.store.db, esim.iccid, name);
    if (rows.length === 0) {
      throw notFound(`bundle ${name} was never assigned to eSIM ${esim.iccid}`);
    }
    const oldest = rows.find((r) => UNUSED.has(r.state));
    if (oldest === undefined) {
      throw badRequest(
        `eSIM ${esim.iccid} has no unused (Processing or Queued) assignment of bundle ${name}; ` +
          'revoke a started one by id with DELETE /esims/{iccid}/bundles/{name}/assignments/{assignmentId}',
        'no_unused_assignment',
      );
    }
    try {
      return await revokeOne(deps, oldest, target);
    } catch (error) {
      const stale = error instanceof DomainError && error.code === STALE_ASSIGNMENT;
      if (!stale || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

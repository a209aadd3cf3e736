import type { Executor } from '../../store/database.js';
import {
  findAssignment,
  listAssignmentsOfEsim,
} from '../../store/repositories/assignment-repository.js';
import type { AssignmentRow } from '../../store/schema.js';
import { DomainError, badRequest, notFound } from '../errors/error-codes.js';
import type { AssignmentContext } from './lifecycle/assign.js';
import { planRevoke, revokeAssignment } from './lifecycle/revoke-assignment.js';
import { STALE_ASSIGNMENT } from './lifecycle/transition.js';
import { loadOwnedEsim } from './owned-esim.js';
import type { IdempotencyDeps } from '../runner/idempotency.js';
import { runWrite } from '../runner/use-case-runner.js';

// Revoking an assignment: by id (DELETE /esims/{iccid}/bundles/{name}/assignments/{id}) or the
// oldest unused one of a bundle (DELETE /esims/{iccid}/bundles/{name}). `type: 'validate'`
// reports what a revoke would do and changes nothing; `transaction` revokes, in a transaction
// the use-case runner opens (`revokeFound`).

export type RevokeDeps = IdempotencyDeps & AssignmentContext;

export interface RevokeOutcome {
  readonly status: 'validated' | 'revoked';
  readonly assignmentId: string;
  readonly bundle: string;
  readonly previousState: string;
  readonly bundleState: string;
  readonly refundToInventory: boolean;
}

export interface RevokeTarget {
  readonly organisationId: string;
  readonly iccid: string;
  readonly name: string;
  readonly type: 'validate' | 'transaction';
}

/** The use case: revokes one assignment already found, in the runner's transaction. */
export async function revokeFound(
  tx: Executor,
  deps: RevokeDeps,
  found: AssignmentRow,
): Promise<RevokeOutcome> {
  const done = await revokeAssignment(tx, deps, found);
  return {
    status: 'revoked',
    assignmentId: found.id,
    bundle: found.bundle_name,
    previousState: found.state,
    bundleState: done.assignment.state,
    refundToInventory: done.refundedToInventory,
  };
}

async function revokeOne(
  deps: RevokeDeps,
  found: AssignmentRow,
  type: 'validate' | 'transaction',
): Promise<RevokeOutcome> {
  if (type === 'transaction') return runWrite(deps, revokeFound, found);
  return {
    status: 'validated',
    assignmentId: found.id,
    bundle: found.bundle_name,
    previousState: found.state,
    bundleState: found.state,
    refundToInventory: planRevoke(found).refundToInventory,
  };
}

/** Revokes (or validates revoking) one assignment by id. */
export async function revokeById(
  deps: RevokeDeps,
  target: RevokeTarget & { readonly assignmentId: string },
): Promise<RevokeOutcome> {
  const { organisationId, name, assignmentId } = target;
  const esim = await loadOwnedEsim(deps.store.db, organisationId, target.iccid);
  const found = await findAssignment(deps.store.db, organisationId, esim.iccid, assignmentId);
  if (found === undefined || found.bundle_name !== name) {
    throw notFound(`assignment ${assignmentId} of bundle ${name} not found on eSIM ${esim.iccid}`);
  }
  return revokeOne(deps, found, target.type);
}

const UNUSED = new Set(['Processing', 'Queued']);
const MAX_ATTEMPTS = 8;

/** Revokes (or validates revoking) the oldest unused (Processing or Queued) assignment of a bundle. */
export async function revokeByName(deps: RevokeDeps, target: RevokeTarget): Promise<RevokeOutcome> {
  const esim = await loadOwnedEsim(deps.store.db, target.organisationId, target.iccid);
  const { name } = target;
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
      return await revokeOne(deps, oldest, target.type);
    } catch (error) {
      const stale = error instanceof DomainError && error.code === STALE_ASSIGNMENT;
      if (!stale || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
}

import type { Executor } from '../../store/database.js';
import { listAssignmentsByReference } from '../../store/repositories/assignment-repository.js';
import { listEsimsByIccid } from '../../store/repositories/esim-repository.js';
import type { AssignmentRow, EsimRow } from '../../store/schema.js';
import type { AssignmentContext } from './lifecycle/assign.js';
import { applyFromInventory } from './lifecycle/apply-from-inventory.js';
import { checkIccid } from './owned-esim.js';

// Applying inventory to an eSIM (POST /esims/apply): a use case of a transaction, run by the
// use-case runner with the request's Idempotency-Key record in the same transaction.

export interface ApplyBundleInput {
  readonly organisationId: string;
  /** The organisation's bundle groups: what it may see in the catalogue. */
  readonly groups: readonly string[];
  readonly bundleName: string;
  /** An eSIM the organisation owns; undefined issues a new one. */
  readonly iccid: string | undefined;
  readonly repeat: number;
  /** The apply's reference when it was fixed before (an apply processed in the background). */
  readonly reference?: string;
}

export interface AppliedBundle {
  readonly esim: EsimRow;
  readonly assignments: readonly AssignmentRow[];
  /** The reference of this apply (a UUID), shared by its assignments. */
  readonly reference: string;
}

export async function applyBundle(
  tx: Executor,
  deps: AssignmentContext,
  input: ApplyBundleInput,
): Promise<AppliedBundle> {
  if (input.iccid !== undefined) checkIccid(input.iccid, 'body field iccid');
  const reference = input.reference ?? deps.random.orderedUuid();
  const result = await applyFromInventory(tx, deps, { ...input, reference });
  return { ...result, reference };
}

/**
 * An apply as it stands now, read back by its reference (one processed in the background,
 * answered to the retry); undefined when the organisation has no such apply.
 */
export async function loadAppliedBundle(
  db: Executor,
  organisationId: string,
  reference: string,
): Promise<AppliedBundle | undefined> {
  const assignments = await listAssignmentsByReference(db, organisationId, reference);
  const [first] = assignments;
  if (first === undefined) return undefined;
  const [esim] = await listEsimsByIccid(db, organisationId, [first.iccid]);
  return esim === undefined ? undefined : { esim, assignments, reference };
}

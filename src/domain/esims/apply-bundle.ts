import type { Executor } from '../../store/database.js';
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
  const reference = deps.random.orderedUuid();
  const result = await applyFromInventory(tx, deps, { ...input, reference });
  return { ...result, reference };
}

import { iso } from '../../../clock.js';
import type { Executor } from '../../../store/database.js';
import { findBundleByName } from '../../../store/repositories/catalogue-repository.js';
import { findOwnedEsim } from '../../../store/repositories/esim-repository.js';
import {
  drawFromInventory,
  holdsBundle,
} from '../../../store/repositories/inventory-repository.js';
import type { Esim } from '../esim.js';
import type { Assignment } from './assignment.js';
import { issueEsim } from '../esim-issuer.js';
import { badRequest, notFound } from '../../errors/error-codes.js';
import { refuseDeactivated } from '../esim-state.js';
import type { AssignmentContext } from './assign.js';
import { createAssignment } from './assign.js';

export const MAX_REPEAT = 100;

export interface ApplyInput {
  readonly organisationId: string;
  readonly bundleName: string;
  /** The organisation's bundle groups: what it may see in the catalogue. */
  readonly groups: readonly string[];
  /** An eSIM the organisation owns; undefined issues a new one. */
  readonly iccid: string | undefined;
  /** How many units to apply to that one eSIM (they queue one after another). */
  readonly repeat: number;
  readonly reference: string;
}

export interface ApplyResult {
  readonly esim: Esim;
  readonly assignments: Assignment[];
}

/**
 * Applies inventory units of a bundle to an eSIM in the caller's transaction: the oldest unexpired
 * batch first, all units or none (an empty inventory is a 400 and nothing changes).
 */
export async function applyFromInventory(
  trx: Executor,
  ctx: AssignmentContext,
  input: ApplyInput,
): Promise<ApplyResult> {
  if (!Number.isInteger(input.repeat) || input.repeat < 1 || input.repeat > MAX_REPEAT) {
    throw badRequest(`body field repeat must be 1 to ${MAX_REPEAT}`);
  }
  const bundle = await findBundleByName(trx, input.bundleName);
  // The organisation knows a bundle of its groups, or one it bought (its groups may have changed
  // since). Any other bundle reads exactly like one that does not exist, so the answer never
  // tells whether a name exists in groups the caller cannot see.
  const known =
    bundle !== undefined &&
    (bundle.groups.some((g) => input.groups.includes(g)) ||
      (await holdsBundle(trx, input.organisationId, bundle.name)));
  if (bundle === undefined || !known) {
    throw badRequest(
      `body field name: bundle "${input.bundleName}" is not available to this organisation`,
      'unknown_bundle',
    );
  }
  let esim: Esim | undefined;
  if (input.iccid !== undefined) {
    esim = await findOwnedEsim(trx, input.organisationId, input.iccid);
    if (esim === undefined) throw notFound(`eSIM ${input.iccid} not found`);
    refuseDeactivated(esim, 'cannot take bundles');
  }
  const at = iso(ctx.clock.now());
  const batches: number[] = [];
  for (let i = 0; i < input.repeat; i += 1) {
    const drawn = await drawFromInventory(trx, input.organisationId, bundle.name, at);
    if (drawn === undefined) {
      throw badRequest(
        `body field name: the inventory holds ${i === 0 ? 'no' : `only ${i}`} unapplied unit${i === 1 ? '' : 's'} of ${bundle.name}; ${input.repeat} needed`,
        'insufficient_inventory',
      );
    }
    batches.push(drawn.batchId);
  }
  esim ??= await issueEsim(trx, ctx, input.organisationId, input.reference);
  const assignments: Assignment[] = [];
  for (const batchId of batches) {
    assignments.push(
      await createAssignment(trx, ctx, {
        organisationId: input.organisationId,
        iccid: esim.iccid,
        bundle,
        reference: input.reference,
        batchId,
      }),
    );
  }
  return { esim, assignments };
}
